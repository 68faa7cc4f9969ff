/**
 * A new egress address warms up: receivers trust an address by its history, so its daily volume
 * to each provider grows with the days it has actually sent, not with the calendar. An address
 * that sent on Monday and then sat idle until Friday is on its second day on Friday, not its fifth.
 *
 * The caps themselves are the rules file's schedule (`warmupDailyCap` in receivers/warmup.ts, by
 * sending day, 1 for the first); this file counts the days. Days are UTC dates, `YYYY-MM-DD`, so
 * they compare as strings.
 */

/** How far an address has come, kept per address (and stored as JSON with it). */
export interface WarmupProgress {
  /** Distinct days on which the address sent at least one message, today included if it has. */
  sendingDays: number
  /** The latest of those days, or null for an address that has never sent. */
  lastSendingDay: string | null
}

export const NEW_ADDRESS_WARMUP: Readonly<WarmupProgress> = Object.freeze({
  sendingDays: 0,
  lastSendingDay: null,
})

/** The days the address sent on before `today`: today is sending day this + 1. */
export function sendingDaysBefore(progress: WarmupProgress, today: string): number {
  assertDay(today)
  return progress.lastSendingDay === today ? progress.sendingDays - 1 : progress.sendingDays
}

/**
 * The address sent on `day`. Counts the day once however often it is recorded; a day earlier than
 * the last one recorded (a late report from another worker) adds nothing.
 */
export function recordSendingDay(progress: WarmupProgress, day: string): WarmupProgress {
  assertDay(day)
  if (progress.lastSendingDay !== null && day <= progress.lastSendingDay) return progress
  return { sendingDays: progress.sendingDays + 1, lastSendingDay: day }
}

/** A UTC date as the warm-up counts it. */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10)
}

function assertDay(day: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new RangeError(`a day must be YYYY-MM-DD, got ${day}`)
}
