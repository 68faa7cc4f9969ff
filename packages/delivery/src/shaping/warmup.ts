/**
 * A new egress address warms up: receivers trust an address by its history, so its daily volume
 * to each provider grows with the days it has actually sent, not with the calendar. An address
 * that sent on Monday and then sat idle until Friday is on its second day on Friday, not its fifth.
 *
 * The schedule is the rules file's list of daily caps for one provider: `schedule[0]` on the first
 * sending day, `schedule[1]` on the second, and so on; past its end the address is warm and has no
 * cap. Days are UTC dates, `YYYY-MM-DD`, so they compare as strings.
 */

export type WarmupSchedule = readonly number[]

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

/**
 * The most messages the address may send the provider today, given `sendingDays`: the days it
 * sent on before today. `Infinity` once the schedule is over (and for an empty schedule).
 */
export function warmupCap(schedule: WarmupSchedule, sendingDays: number): number {
  if (!(Number.isInteger(sendingDays) && sendingDays >= 0)) {
    throw new RangeError(`sendingDays must be an integer ≥ 0, got ${sendingDays}`)
  }
  schedule.forEach((cap, day) => {
    if (!(Number.isInteger(cap) && cap >= 0)) {
      throw new RangeError(`warm-up schedule day ${day + 1}: the cap must be an integer ≥ 0, got ${cap}`)
    }
  })
  return schedule[sendingDays] ?? Number.POSITIVE_INFINITY
}

/** The days the address sent on before `today`: what `warmupCap` counts from. */
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
