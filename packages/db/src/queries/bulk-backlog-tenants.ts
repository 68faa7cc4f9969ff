import type { ActiveTenant, ActiveTenantRead, LeavingTenant } from '@fairlane/core/pacing'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/**
 * The bulk pacer's active set (`bulk_backlog_tenants`, kept by migration 0028's triggers) with each
 * tenant's plan. `after` null: the whole set (a new leader, or the periodic re-read that also picks
 * up plan changes); else only the rows stamped by transactions that had not committed at the read
 * that gave this cursor. The cursor is the xmin of this read's snapshot: every transaction below it
 * had ended by then, so its stamps were read now or before, and none is missed however the
 * writers' commits interleave (a `seq > last seen` read would miss a stamp whose transaction
 * committed after a later one's). Stamps of transactions that stay open are read again next time:
 * the planner takes a tenant it knows as a no-op.
 */
export async function readActiveTenants(
  db: Executor,
  input: { after: string | null },
): Promise<ActiveTenantRead> {
  const changed = input.after === null ? sql`true` : sql`b.changed_xid >= ${input.after}::xid8`
  const rows = await db.execute<{
    cursor: string
    tenant_id: string | null
    seq: string | null
    rate_per_sec: number | null
    burst: number | null
    weight: number | null
  }>(sql`
    with snap as (select pg_snapshot_xmin(pg_current_snapshot())::text as cursor)
    select snap.cursor, a.tenant_id, a.seq::text as seq, a.rate_per_sec, a.burst, a.weight
    from snap left join lateral (
      select b.tenant_id, b.seq, t.rate_per_sec, t.burst, t.weight
      from bulk_backlog_tenants b join tenants t on t.id = b.tenant_id
      where ${changed}
    ) a on true`)
  const cursor = rows[0]?.cursor
  if (cursor === undefined) throw new Error('the active-set read returned no snapshot')
  const tenants: ActiveTenant[] = []
  for (const row of rows) {
    if (row.tenant_id === null) continue
    tenants.push({
      tenantId: row.tenant_id,
      seq: Number(row.seq),
      ratePerSec: row.rate_per_sec as number,
      burst: row.burst as number,
      weight: row.weight as number,
    })
  }
  return { tenants, cursor }
}

/**
 * Tenants a claim found short leave the active set, each only if it has no pending bulk row left and
 * its row still carries the `seq` the pacer read (not stamped since). A row another transaction is
 * stamping right now is locked by it until it commits and is skipped (SKIP LOCKED): that transaction
 * is adding pending rows. One that stamped and committed after this statement's snapshot changed the
 * seq, which the lock's recheck sees. Returns the tenants that left.
 */
export async function leaveActiveIfEmpty(db: Executor, tenants: readonly LeavingTenant[]): Promise<string[]> {
  if (tenants.length === 0) return []
  const values = sql.join(
    tenants.map((tenant) => sql`(${tenant.tenantId}::uuid, ${tenant.seq}::bigint)`),
    sql`, `,
  )
  const rows = await db.execute<{ tenant_id: string }>(sql`
    with emptied as (
      select b.tenant_id from bulk_backlog_tenants b
      join (values ${values}) as read(tenant_id, seq) on b.tenant_id = read.tenant_id and b.seq = read.seq
      where not exists (
        select 1 from messages m where m.tenant_id = b.tenant_id and m.status = 'pending' and m.lane = 'bulk')
      order by b.tenant_id
      for update of b skip locked
    )
    delete from bulk_backlog_tenants b using emptied e where b.tenant_id = e.tenant_id
    returning b.tenant_id`)
  return rows.map((row) => row.tenant_id)
}
