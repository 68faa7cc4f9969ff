import { daysToRoll, type RollupDay } from './days-to-roll'

/** The `job_cursors` row of the per-tenant daily rollup. */
export const ROLLUP_CURSOR_NAME = 'tenant-daily-rollup'

export interface RollupStore {
  /** Start of the last day rolled up, or null before the first run. */
  readCursor(): Promise<Date | null>
  /**
   * Recomputes one day's per-tenant rows from the messages, overwriting whatever the day had, and
   * moves the cursor to that day, in one transaction: a crash leaves either both or neither.
   */
  writeDay(day: RollupDay): Promise<{ tenants: number }>
}

export interface RollUpDaysDeps {
  store: RollupStore
  timeZone: string
  clock: { now(): Date }
}

export interface RollUpDaysResult {
  days: { day: string; tenants: number }[]
}

/**
 * The daily rollup: every ended day after the cursor, oldest first, each overwritten whole and the
 * cursor moved after it. A run that dies mid-way leaves the cursor on the last finished day, so the
 * next run redoes only the unfinished one (overwriting, so its totals stay right); a run with
 * nothing new does nothing.
 */
export async function rollUpDays(deps: RollUpDaysDeps): Promise<RollUpDaysResult> {
  const cursor = await deps.store.readCursor()
  const days = daysToRoll({ cursor, now: deps.clock.now(), timeZone: deps.timeZone })
  const done: RollUpDaysResult['days'] = []
  for (const day of days) {
    const { tenants } = await deps.store.writeDay(day)
    done.push({ day: day.day, tenants })
  }
  return { days: done }
}
