import type { UsageStore } from '@fairlane/core'
import type { QuotaUsage, TenantPlan } from '@fairlane/core/accept'
import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { tenantUsageDays } from '../schema'

/**
 * `tenant_usage_days`: what each tenant accepted per UTC day and lane, written in the statement or
 * transaction that accepts, read by the quotas (under the tenant's quota lock) and the usage report.
 */

/**
 * The upsert that counts accepted mail: one row per message in `from` (a CTE of the statement that
 * inserted them, so only what was really inserted counts), added to the row of `at`'s UTC day.
 */
export function countAcceptedSql(input: {
  tenantId: string
  at: Date
  lane: string
  bytes: number
  from: SQL
}): SQL {
  return sql`
    insert into ${tenantUsageDays} as u (tenant_id, day, lane, accepted, accepted_bytes)
    select ${input.tenantId}::uuid, (${input.at.toISOString()}::timestamptz at time zone 'UTC')::date,
      ${input.lane}, count(*)::int, count(*) * ${input.bytes}::bigint
    from ${input.from}
    having count(*) > 0
    on conflict (tenant_id, day, lane) do update
      set accepted = u.accepted + excluded.accepted,
        accepted_bytes = u.accepted_bytes + excluded.accepted_bytes,
        updated_at = now()`
}

/** Adds `count` messages of `bytes` in total to the tenant's day and lane (campaign dispatch's batches). */
export async function addAcceptedUsage(
  db: Executor,
  input: { tenantId: string; at: Date; lane: string; count: number; bytes: number },
): Promise<void> {
  if (input.count <= 0) return
  await db.execute(sql`
    insert into ${tenantUsageDays} as u (tenant_id, day, lane, accepted, accepted_bytes)
    values (${input.tenantId}::uuid, (${input.at.toISOString()}::timestamptz at time zone 'UTC')::date,
      ${input.lane}, ${input.count}, ${input.bytes})
    on conflict (tenant_id, day, lane) do update
      set accepted = u.accepted + excluded.accepted,
        accepted_bytes = u.accepted_bytes + excluded.accepted_bytes,
        updated_at = now()`)
}

/**
 * Inside a transaction: the tenant's quota lock (a transaction-scoped advisory lock, so it needs no row
 * and is released by COMMIT or ROLLBACK, PgBouncer's transaction mode included), then its use of the
 * UTC day and calendar month of `now`. Every accept of a tenant with a quota passes here before its
 * insert, so the read and the count it is checked against are never stale.
 */
export async function lockQuotaUsage(
  db: Executor,
  query: { tenantId: string; now: Date },
): Promise<QuotaUsage> {
  await db.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`fairlane:quota:${query.tenantId}`}, 0))`,
  )
  return readQuotaUsage(db, query)
}

/** What the tenant accepted in `now`'s UTC day and calendar month, all lanes (no lock). */
export async function readQuotaUsage(
  db: Executor,
  query: { tenantId: string; now: Date },
): Promise<QuotaUsage> {
  const day = query.now.toISOString().slice(0, 10)
  const monthStart = `${day.slice(0, 7)}-01`
  const [row] = await db.execute<{ today: number; month: number }>(sql`
    select coalesce(sum(accepted) filter (where day = ${day}::date), 0)::int as today,
      coalesce(sum(accepted), 0)::int as month
    from ${tenantUsageDays}
    where tenant_id = ${query.tenantId} and day >= ${monthStart}::date and day <= ${day}::date`)
  return { usedToday: row?.today ?? 0, usedThisMonth: row?.month ?? 0 }
}

/** The tenant's plan as admission reads it; null for an unknown tenant. */
export async function findTenantAdmissionPlan(
  db: Executor,
  query: { tenantId: string },
): Promise<TenantPlan | null> {
  const [row] = await db.execute<{
    tx_rate_per_sec: number | null
    tx_burst: number | null
    quota_daily: number | null
    quota_monthly: number | null
  }>(sql`
    select tx_rate_per_sec, tx_burst, quota_daily, quota_monthly from tenants where id = ${query.tenantId}`)
  if (!row) return null
  return tenantPlanOf({
    txRatePerSec: row.tx_rate_per_sec,
    txBurst: row.tx_burst,
    quotaDaily: row.quota_daily,
    quotaMonthly: row.quota_monthly,
  })
}

/** Columns → plan: a null rate or burst is the platform's, a null quota none. */
export function tenantPlanOf(row: {
  txRatePerSec: number | null
  txBurst: number | null
  quotaDaily: number | null
  quotaMonthly: number | null
}): TenantPlan {
  return {
    transactional: { ratePerSec: row.txRatePerSec, burst: row.txBurst },
    quota: { daily: row.quotaDaily, monthly: row.quotaMonthly },
  }
}

/**
 * The usage report's store. Accepted: `tenant_usage_days`. Outcomes: the tenant's messages accepted in
 * the range (one range of `messages_tenant_created_idx`, at most 92 days), by the UTC day they were
 * accepted and their lane, counted by what became of them so far (sent: handed to the receiver, a
 * bounce or complaint later included). Cheaper than the events (no index by tenant and time there) and
 * with lanes, which `tenant_daily_stats` lacks; days older than the message retention read zero.
 */
export function createUsageStore(db: Executor): UsageStore {
  return {
    async acceptedDays(query) {
      const rows = await db.execute<{ date: string; lane: string; accepted: number }>(sql`
        select to_char(day, 'YYYY-MM-DD') as date, lane, accepted
        from ${tenantUsageDays}
        where tenant_id = ${query.tenantId} and day >= ${query.from}::date and day <= ${query.to}::date`)
      return [...rows]
    },
    async outcomeDays(query) {
      const rows = await db.execute<{
        date: string
        lane: string
        sent: number
        bounced: number
        complained: number
        suppressed: number
      }>(sql`
        select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as date, lane,
          count(*) filter (where sent_at is not null)::int as sent,
          count(*) filter (where status = 'bounced')::int as bounced,
          count(*) filter (where status = 'complained')::int as complained,
          count(*) filter (where status = 'suppressed')::int as suppressed
        from messages
        where tenant_id = ${query.tenantId}
          and created_at >= (${query.from}::date)::timestamp at time zone 'UTC'
          and created_at < ((${query.to}::date + 1))::timestamp at time zone 'UTC'
        group by 1, 2`)
      return [...rows]
    },
    quotaUsage: (query) => readQuotaUsage(db, query),
  }
}
