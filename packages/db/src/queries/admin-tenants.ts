import { type PlanJson, type PlanOverrides, planAnswer, readOverrides } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { sentSince } from './admin-recent-sends'

export interface TenantLoad {
  id: string
  name: string
  /** The named plan (PLANS) the tenant is on. */
  planName: string
  /** The plan in force: bulk rate, burst and weight, the transactional part (null: the platform's) and quotas. */
  plan: PlanJson
  /** The fields set by hand for this tenant, by column name. */
  planOverrides: PlanOverrides
  /** Pending: waiting in PostgreSQL for the pacer; queued: handed to a lane, not yet sent. */
  backlog: { pending: number; queued: number }
  sentLastMinute: number
  /** False while held for approval (SIGNUP_MODE=approve). */
  approved: boolean
  /** Fairlane's own tenant (account mail). */
  platform: boolean
}

/**
 * One page of tenants (by name, then id) with their plan, backlog and sends in the minute before
 * `now`, for the admin console: up to `limit + 1` rows, so the caller knows whether a next page
 * exists. `after` is the last tenant id of the previous page; its (name, id) is read in SQL. The counts
 * are taken for the page's tenants only, each through an index made for it: pending bulk rows through
 * the pacer's `messages_bulk_backlog_idx`, queued rows through the sweeper's `messages_queued_idx`,
 * recent sends through `sentSince`. (API mail is written `queued` at once, so `pending` is campaign
 * mail alone.)
 */
export async function listTenantLoads(
  db: Executor,
  query: { now: Date; limit: number; after?: string | undefined },
): Promise<TenantLoad[]> {
  const since = new Date(query.now.getTime() - 60_000)
  const after = query.after
    ? sql`where (t.name, t.id) > (select a.name, a.id from tenants a where a.id = ${query.after}::uuid)`
    : sql``
  const rows = await db.execute<{
    id: string
    name: string
    rate_per_sec: number
    burst: number
    weight: number
    plan_name: string
    plan_overrides: Record<string, unknown> | null
    tx_rate_per_sec: number | null
    tx_burst: number | null
    quota_daily: number | null
    quota_monthly: number | null
    pending: number
    queued: number
    sent: number
    approved: boolean
    is_platform: boolean
  }>(sql`
    with page as (
      select t.id, t.name, t.rate_per_sec, t.burst, t.weight, t.plan_name, t.plan_overrides, t.tx_rate_per_sec,
        t.tx_burst, t.quota_daily, t.quota_monthly, t.approved_at is not null as approved, t.is_platform
      from tenants t ${after}
      order by t.name, t.id
      limit ${query.limit + 1}
    ), pending as (
      select tenant_id, count(*)::int as n from messages
      where status = 'pending' and lane = 'bulk' and tenant_id in (select id from page) group by tenant_id
    ), queued as (
      select tenant_id, count(*)::int as n from messages
      where status = 'queued' and queued_at is not null and tenant_id in (select id from page)
      group by tenant_id
    ), released as (
      -- Bulk rows handed to a job: the table keeps them pending, readers see them queued (at most the
      -- lane's depth: read from the narrow claims table).
      select m.tenant_id, count(*)::int as n from message_claims c join messages m on m.id = c.message_id
      where c.lock_token is null and m.status = 'pending' and m.tenant_id in (select id from page)
      group by m.tenant_id
    ), sent as (
      select tenant_id, count(*)::int as n from ${sentSince(since)} s
      where tenant_id in (select id from page) group by tenant_id
    )
    select t.id, t.name, t.rate_per_sec, t.burst, t.weight, t.plan_name, t.plan_overrides, t.tx_rate_per_sec,
      t.tx_burst, t.quota_daily, t.quota_monthly, t.approved, t.is_platform,
      greatest(coalesce(pending.n, 0) - coalesce(released.n, 0), 0) as pending,
      coalesce(queued.n, 0) + coalesce(released.n, 0) as queued, coalesce(sent.n, 0) as sent
    from page t
    left join pending on pending.tenant_id = t.id
    left join queued on queued.tenant_id = t.id
    left join released on released.tenant_id = t.id
    left join sent on sent.tenant_id = t.id
    order by t.name, t.id`)
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    planName: row.plan_name,
    plan: planAnswer({
      ratePerSec: row.rate_per_sec,
      burst: row.burst,
      weight: row.weight,
      txRatePerSec: row.tx_rate_per_sec,
      txBurst: row.tx_burst,
      quotaDaily: row.quota_daily,
      quotaMonthly: row.quota_monthly,
    }),
    planOverrides: readOverrides(row.plan_overrides),
    backlog: { pending: row.pending, queued: row.queued },
    sentLastMinute: row.sent,
    approved: row.approved,
    platform: row.is_platform,
  }))
}

export type TenantDay = {
  /** `YYYY-MM-DD`, UTC. */
  day: string
  sent: number
  failed: number
  suppressed: number
  deferred: number
}

/**
 * A tenant's rolled-up days (`tenant_daily_stats`, written by the worker's daily rollup) from
 * `days` days before `today` up to it, oldest first; days the rollup has not written are absent.
 */
export async function tenantDailyHistory(
  db: Executor,
  query: { tenantId: string; today: Date; days: number },
): Promise<TenantDay[]> {
  const today = query.today.toISOString().slice(0, 10)
  const rows = await db.execute<TenantDay>(sql`
    select day::text as day, sent, failed, suppressed, deferred
    from tenant_daily_stats
    where tenant_id = ${query.tenantId}
      and day > ${today}::date - ${query.days}::int and day <= ${today}::date
    order by day`)
  return rows.map((row) => ({
    day: row.day,
    sent: row.sent,
    failed: row.failed,
    suppressed: row.suppressed,
    deferred: row.deferred,
  }))
}
