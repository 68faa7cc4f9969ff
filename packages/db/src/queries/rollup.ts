import type { RollupDay, RollupStore } from '@fairlane/core'
import { ROLLUP_CURSOR_NAME } from '@fairlane/core'
import { eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { jobCursors } from '../schema'

export async function readJobCursor(db: Executor, name: string): Promise<Date | null> {
  const [row] = await db
    .select({ cursorAt: jobCursors.cursorAt })
    .from(jobCursors)
    .where(eq(jobCursors.name, name))
  return row?.cursorAt ?? null
}

export async function writeJobCursor(db: Executor, name: string, cursorAt: Date): Promise<void> {
  await db
    .insert(jobCursors)
    .values({ name, cursorAt })
    .onConflictDoUpdate({ target: jobCursors.name, set: { cursorAt, updatedAt: new Date() } })
}

/**
 * Recomputes one day of `tenant_daily_stats` from the messages and overwrites it: tenants with
 * activity get their row inserted or replaced, rows of tenants with none that day are removed, so a
 * rerun always leaves exactly what the messages say. A message counts on the day of its outcome:
 * `sent_at` for sent, `failed_at` for failed, `updated_at` for suppressed (the row's last change is
 * its suppression, at dispatch or at send time; the nightly key release leaves `updated_at` alone
 * for this reason).
 *
 * `deferred` sums `tenant_deferral_counts` (the workers' per-minute counts of sends the token
 * bucket deferred) over the day's minutes.
 */
export async function writeTenantDay(db: Executor, day: RollupDay): Promise<{ tenants: number }> {
  const from = day.startsAt.toISOString()
  const to = day.endsAt.toISOString()
  const rows = await db.execute<{ tenant_id: string }>(sql`
    with outcomes as (
      -- One range scan of a partial index per outcome (messages_sent_at_idx, messages_failed_idx,
      -- messages_suppressed_at_idx): the day's messages only, never the months around them.
      select tenant_id, 'sent' as outcome from messages
      where status = 'sent' and sent_at >= ${from}::timestamptz and sent_at < ${to}::timestamptz
      union all
      select tenant_id, 'failed' from messages
      where status = 'failed' and failed_at >= ${from}::timestamptz and failed_at < ${to}::timestamptz
      union all
      select tenant_id, 'suppressed' from messages
      where status = 'suppressed' and updated_at >= ${from}::timestamptz and updated_at < ${to}::timestamptz
    ),
    message_counts as (
      select tenant_id,
        count(*) filter (where outcome = 'sent')::int as sent,
        count(*) filter (where outcome = 'failed')::int as failed,
        count(*) filter (where outcome = 'suppressed')::int as suppressed
      from outcomes
      group by tenant_id
    ),
    deferral_counts as (
      select tenant_id, sum(count)::int as deferred
      from tenant_deferral_counts
      where minute >= ${from}::timestamptz and minute < ${to}::timestamptz
      group by tenant_id
    ),
    counts as (
      select coalesce(m.tenant_id, d.tenant_id) as tenant_id,
        coalesce(m.sent, 0) as sent, coalesce(m.failed, 0) as failed,
        coalesce(m.suppressed, 0) as suppressed, coalesce(d.deferred, 0) as deferred
      from message_counts m full outer join deferral_counts d on d.tenant_id = m.tenant_id
    ),
    active as (
      select * from counts where sent + failed + suppressed + deferred > 0
    ),
    upserted as (
      insert into tenant_daily_stats (tenant_id, day, sent, failed, suppressed, deferred)
      select tenant_id, ${day.day}::date, sent, failed, suppressed, deferred from active
      on conflict (tenant_id, day) do update set
        sent = excluded.sent,
        failed = excluded.failed,
        suppressed = excluded.suppressed,
        deferred = excluded.deferred,
        updated_at = now()
      returning tenant_id
    ),
    removed as (
      delete from tenant_daily_stats
      where day = ${day.day}::date and tenant_id not in (select tenant_id from active)
    )
    select tenant_id from upserted
  `)
  return { tenants: rows.length }
}

/** Test seam: runs inside the day's transaction, after the day was written and before the cursor moves. */
export type AfterDayWritten = (day: RollupDay) => Promise<void> | void

/**
 * The rollup's store: each day written and the cursor moved to it in one transaction, so a crash
 * between the two cannot leave a day counted but the cursor behind it (or the reverse).
 */
export function createRollupStore(
  db: Database,
  hooks: { afterDayWritten?: AfterDayWritten } = {},
): RollupStore {
  return {
    readCursor: () => readJobCursor(db, ROLLUP_CURSOR_NAME),
    writeDay: (day) =>
      db.transaction(async (tx) => {
        const written = await writeTenantDay(tx, day)
        await hooks.afterDayWritten?.(day)
        await writeJobCursor(tx, ROLLUP_CURSOR_NAME, day.startsAt)
        return written
      }),
  }
}
