import { type ReputationStage, weightAtStage } from '@fairlane/core'
import type { ActiveTenant, ActiveTenantRead, LeavingTenant } from '@fairlane/core/pacing'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messageClaims } from '../schema'
import { noFlushWait } from './no-flush-wait'
import { notPaused } from './pacer'

/**
 * The bulk pacer's active set (`bulk_backlog_tenants`, kept by migration 0028's triggers) with each
 * tenant's plan. `after` null: the whole set (a new leader, or the periodic re-read that also picks
 * up plan changes); else only the rows stamped since the read that gave this cursor.
 *
 * The cursor is that read's highest visible `seq` and the transactions its snapshot saw in progress.
 * A stamp made since is either by one of those (read by its xid, whatever its seq: it may have
 * drawn its seq before a stamp the read did see) or by a transaction that began its writes after
 * the snapshot, whose seq is then above every seq handed out before it. Both are index probes, so
 * the read costs what changed, even while a long transaction elsewhere holds the xmin back.
 * Stamps of transactions still open are read again next time: the planner takes a tenant it knows
 * as a no-op.
 */
export async function readActiveTenants(
  db: Executor,
  input: { after: string | null },
): Promise<ActiveTenantRead> {
  const after = input.after === null ? null : parseCursor(input.after)
  const changed = after
    ? sql`select b.tenant_id from bulk_backlog_tenants b where b.seq > ${after.seq}::bigint
        union
        select b.tenant_id from bulk_backlog_tenants b where b.changed_xid = any(${`{${after.xids.join(',')}}`}::xid8[])`
    : sql`select b.tenant_id from bulk_backlog_tenants b`
  const rows = await db.execute<{
    max_seq: string | null
    xids: string
    tenant_id: string | null
    seq: string | null
    rate_per_sec: number | null
    burst: number | null
    weight: number | null
    stage: ReputationStage | null
  }>(sql`
    with snap as (
      select (select max(seq) from bulk_backlog_tenants)::text as max_seq,
        coalesce((select string_agg(x::text, ',') from pg_snapshot_xip(pg_current_snapshot()) x), '') as xids
    )
    select snap.max_seq, snap.xids, a.tenant_id, a.seq::text as seq, a.rate_per_sec, a.burst, a.weight, a.stage
    from snap left join lateral (
      select b.tenant_id, b.seq, t.rate_per_sec, t.burst, t.weight, t.reputation_stage as stage
      from (${changed}) c
      join bulk_backlog_tenants b on b.tenant_id = c.tenant_id
      -- A paused tenant is not in the set the pacer plans over (its row stays: resumed, it is stamped
      -- and read again); a slowed one comes with its cut weight.
      join tenants t on t.id = b.tenant_id and ${notPaused}
    ) a on true`)
  const first = rows[0]
  if (!first) throw new Error('the active-set read returned no snapshot')
  const tenants: ActiveTenant[] = []
  for (const row of rows) {
    if (row.tenant_id === null) continue
    tenants.push({
      tenantId: row.tenant_id,
      seq: Number(row.seq),
      ratePerSec: row.rate_per_sec as number,
      burst: row.burst as number,
      weight: weightAtStage(row.weight as number, row.stage as ReputationStage),
    })
  }
  // An empty set keeps the last seq seen: the sequence only grows, so nothing below it is new.
  const seq = first.max_seq ?? (after ? String(after.seq) : '0')
  return { tenants, cursor: `${seq}|${first.xids}` }
}

function parseCursor(cursor: string): { seq: string; xids: string[] } {
  const [seq, xids = ''] = cursor.split('|')
  if (!(seq && /^\d+$/.test(seq)) || !/^(\d+(,\d+)*)?$/.test(xids)) {
    throw new RangeError(`not an active-set cursor: ${cursor}`)
  }
  return { seq, xids: xids === '' ? [] : xids.split(',') }
}

/**
 * Tenants a claim found short leave the active set, each only if it has no pending bulk row left that
 * is not handed to a job (released or claimed), and
 * its row still carries the `seq` the pacer read (not stamped since). A row another transaction is
 * stamping right now is locked by it until it commits and is skipped (SKIP LOCKED): that transaction
 * is adding pending rows. One that stamped and committed after this statement's snapshot changed the
 * seq, which the lock's recheck sees. Returns the tenants that left. Its commit does not wait for
 * the WAL flush (`noFlushWait`): a leave lost in a PostgreSQL crash keeps a tenant in the set, and the
 * next claim that finds it short lets it leave again.
 */
export async function leaveActiveIfEmpty(db: Executor, tenants: readonly LeavingTenant[]): Promise<string[]> {
  if (tenants.length === 0) return []
  const values = sql.join(
    tenants.map((tenant) => sql`(${tenant.tenantId}::uuid, ${tenant.seq}::bigint)`),
    sql`, `,
  )
  const rows = await db.execute<{ tenant_id: string }>(sql`
    with ${noFlushWait}, emptied as (
      select b.tenant_id from no_flush_wait, bulk_backlog_tenants b
      join (values ${values}) as read(tenant_id, seq) on b.tenant_id = read.tenant_id and b.seq = read.seq
      where not exists (
        select 1 from messages m where m.tenant_id = b.tenant_id and m.status = 'pending' and m.lane = 'bulk'
          -- A released row (handed to a job) is not backlog: its job has it.
          and not exists (select 1 from ${messageClaims} c where c.message_id = m.id))
      order by b.tenant_id
      for update of b skip locked
    )
    delete from bulk_backlog_tenants b using emptied e where b.tenant_id = e.tenant_id
    returning b.tenant_id`)
  return rows.map((row) => row.tenant_id)
}
