import { DateTime } from 'luxon'

/** One calendar day in the rollup's time zone: `[startsAt, endsAt)`, 23 or 25 hours long across DST. */
export interface RollupDay {
  /** `YYYY-MM-DD`, the day's date in the time zone. */
  day: string
  startsAt: Date
  endsAt: Date
}

export interface DaysToRollInput {
  /**
   * Any instant of the last day already rolled up (the rollup stores that day's start), or null on
   * the very first run.
   */
  cursor: Date | null
  now: Date
  /** IANA zone the days are cut in. */
  timeZone: string
}

/**
 * The days a cursor-driven rollup must (re)compute now: every day after the cursor's day that has
 * ended by `now`, oldest first. Pure, so a rollup that was down for a week plans the whole week on
 * its next run, and one that already ran plans nothing.
 *
 * Without a cursor it plans yesterday only: history before the first run is not rolled up (each day
 * is a scan of that day's messages, and years of it in one job would be a surprise). To backfill, set
 * the cursor by hand to the day before the first wanted day.
 */
export function daysToRoll(input: DaysToRollInput): RollupDay[] {
  const zone = input.timeZone
  const today = DateTime.fromJSDate(input.now, { zone }).startOf('day')
  if (!today.isValid) throw new Error(`invalid time zone ${JSON.stringify(zone)}`)
  let day =
    input.cursor === null
      ? today.minus({ days: 1 })
      : DateTime.fromJSDate(input.cursor, { zone }).startOf('day').plus({ days: 1 })
  const days: RollupDay[] = []
  // A day has ended when the next day has begun; `today` itself is still running.
  while (day < today) {
    const next = day.plus({ days: 1 })
    days.push({ day: day.toISODate() as string, startsAt: day.toJSDate(), endsAt: next.toJSDate() })
    day = next
  }
  return days
}
