import { and, count, eq, lt } from 'drizzle-orm'
import type { Executor } from '../client'
import { egressSendingDays } from '../schema'

/** The days (UTC, `YYYY-MM-DD`) before `day` on which `egress` sent mail: its warm-up's progress. */
export async function countSendingDaysBefore(
  db: Executor,
  input: { egress: string; day: string },
): Promise<number> {
  const [row] = await db
    .select({ days: count() })
    .from(egressSendingDays)
    .where(and(eq(egressSendingDays.egress, input.egress), lt(egressSendingDays.day, input.day)))
  return row?.days ?? 0
}

/** `egress` sent mail on `day`; once a day is enough (a repeat adds nothing). */
export async function recordSendingDay(db: Executor, input: { egress: string; day: string }): Promise<void> {
  await db.insert(egressSendingDays).values(input).onConflictDoNothing()
}
