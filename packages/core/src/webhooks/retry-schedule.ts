/**
 * When a failed delivery is tried again: after attempt n fails, it waits `schedule[n - 1]` (jittered);
 * when attempt n fails and n is past the schedule's end, the delivery has failed for good. The
 * default spans about 28 hours: long enough for a receiver's overnight outage, short enough that a
 * tenant learns its endpoint is broken within a day and a half.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
]

/**
 * Jitter of ±10 %: the deliveries that failed together during one outage (an endpoint down for a
 * minute fails hundreds of them) come back spread out, not as one burst on a receiver that just
 * recovered.
 */
export const RETRY_JITTER = 0.1

/** The wait before the next attempt after attempt `attempt` (1-based) failed, or null: give up. */
export function retryDelayMs(
  attempt: number,
  schedule: readonly number[] = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be ≥ 1, got ${attempt}`)
  const base = schedule[attempt - 1]
  if (base === undefined) return null
  return Math.round(base * (1 + (random() * 2 - 1) * RETRY_JITTER))
}

/**
 * Reads a schedule such as `5s,5m,30m,2h` (units ms, s, m, h; a bare number is ms), for tests and
 * operators that need a faster or slower one (WEBHOOK_RETRY_SCHEDULE). Returns a reason when it
 * cannot be read.
 */
export function parseRetrySchedule(text: string): readonly number[] | string {
  const parts = text.split(',').map((part) => part.trim())
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, '': 1 }
  const schedule: number[] = []
  for (const part of parts) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(part)
    if (!match) return `"${part}" is not a duration such as 500ms, 5s, 5m or 2h`
    const ms = Math.round(Number(match[1]) * (units[match[2] ?? ''] ?? 1))
    if (ms <= 0) return `"${part}" must be longer than 0`
    schedule.push(ms)
  }
  return schedule
}
