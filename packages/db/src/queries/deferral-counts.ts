import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import type { CleanupBatch } from './cleanup'

/** What one worker counted for a tenant, lane and minute since its last flush. */
export interface DeferralCount {
  tenantId: string
  lane: string
  /** The minute's start (UTC). */
  minute: Date
  count: number
}

/**
 * Adds counted deferrals in one statement: every worker flushes its own counts, so a minute's row
 * grows by each flush (`count + excluded.count`) instead of being overwritten. A tenant deleted
 * since is skipped rather than failing the whole flush.
 */
export async function addDeferralCounts(db: Executor, counts: DeferralCount[]): Promise<void> {
  if (counts.length === 0) return
  const rows = counts.map((c) => ({
    tenant_id: c.tenantId,
    minute: c.minute.toISOString(),
    lane: c.lane,
    count: c.count,
  }))
  await db.execute(sql`
    insert into tenant_deferral_counts (tenant_id, minute, lane, count)
    select c.tenant_id, c.minute, c.lane, sum(c.count)::int
    from json_to_recordset(${JSON.stringify(rows)}::json) as c(tenant_id uuid, minute timestamptz, lane text, count int)
    where exists (select 1 from tenants t where t.id = c.tenant_id)
    group by c.tenant_id, c.minute, c.lane
    on conflict (tenant_id, minute, lane) do update set count = tenant_deferral_counts.count + excluded.count
  `)
}

/** Deferral counts of minutes before `before`: the rollup has long turned them into daily rows. */
export async function deleteDeferralCountsBefore(db: Executor, batch: CleanupBatch): Promise<number> {
  const rows = await db.execute(sql`
    delete from tenant_deferral_counts
    where ctid in (
      select ctid from tenant_deferral_counts
      where minute < ${batch.before.toISOString()}::timestamptz
      order by minute
      limit ${batch.limit}
    )
    returning 1
  `)
  return rows.length
}
