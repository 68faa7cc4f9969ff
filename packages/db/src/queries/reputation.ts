import {
  DEFAULT_GUARDRAIL_THRESHOLDS,
  type FeedbackCounts,
  type GuardrailThresholds,
  isWorse,
  REPUTATION_GUARDRAIL_ACTOR,
  REPUTATION_WINDOWS,
  type ReputationStage,
  type ReputationStore,
  type ReputationWindow,
  reputationNotice,
  type StageChange,
  TENANT_AUDIT_ACTIONS,
  type TenantReputationCounts,
} from '@fairlane/core'
import { and, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { reputationThresholds, tenants } from '../schema'
import { ensurePlatformTenant } from './platform-tenant'
import { insertTenantAuditEntry } from './tenant-audit'
import { queueTenantNotices } from './tenant-notices'
import { insertWebhookDeliveries } from './webhook-outbox'

export interface ReputationNotices {
  /** APP_URL: the notice links to the tenant's dashboard. */
  appUrl: string
  /** The platform tenant's name, should the notice be its first message (`ensurePlatformTenant`). */
  platformTenantName: string
}

/** The reputation guardrail's store in PostgreSQL (`checkReputation`). */
export function createReputationStore(
  db: Database,
  notices: ReputationNotices,
  options: { weekRefreshMs?: number; now?: () => Date } = {},
): ReputationStore {
  const now = options.now ?? (() => new Date())
  const refreshMs = options.weekRefreshMs ?? WEEK_WINDOW_REFRESH_MS
  let week: { readAt: Date; rows: WindowRow[] } | null = null
  return {
    readThresholds: () => readGuardrailThresholds(db),
    async readCounts() {
      const at = now()
      if (week === null || at.getTime() - week.readAt.getTime() >= refreshMs) {
        week = { readAt: at, rows: await readWindow(db, 'week', null) }
      }
      return mergeWindows(await readWindow(db, 'day', week.readAt), week)
    },
    changeStage: (change) => changeReputationStage(db, change, notices),
    pauseCampaignsOfPausedTenants: () => pauseSendingCampaigns(db),
  }
}

/** The thresholds table's rows over the defaults (a stage without a row keeps its default). */
export async function readGuardrailThresholds(db: Executor): Promise<GuardrailThresholds> {
  const rows = await db.select().from(reputationThresholds)
  const thresholds = { ...DEFAULT_GUARDRAIL_THRESHOLDS }
  for (const row of rows) {
    thresholds[row.stage] = {
      hardBounceRate: row.hardBounceRate,
      complaintRate: row.complaintRate,
      minSent: row.minSent,
    }
  }
  return thresholds
}

/**
 * The 7-day window is read at most this often per store (the worker process's): it is one read of
 * the week's feedback events, and a week's rates move slowly; the 24-hour window is read every pass.
 */
export const WEEK_WINDOW_REFRESH_MS = 10 * 60_000

interface WindowRow {
  tenantId: string
  stage: ReputationStage
  resumedAt: Date | null
  counts: FeedbackCounts
}

const NOTHING: FeedbackCounts = { sent: 0, hardBounces: 0, complaints: 0 }

/**
 * Sends, hard bounces and complaints per tenant over one window (each from the tenant's last resume
 * at the earliest: a resumed tenant is judged afresh), in one pass over the window's feedback events
 * through the BRIN on `at` (see `tenantFeedbackSince` for its cost); also every tenant not at `ok`
 * (so a warning lifts once its mail has aged out) and every tenant resumed since `resumedSince`.
 */
async function readWindow(
  db: Executor,
  window: ReputationWindow,
  resumedSince: Date | null,
): Promise<WindowRow[]> {
  const hours = REPUTATION_WINDOWS[window]
  const rows = await db.execute<{
    tenant_id: string
    stage: ReputationStage
    resumed_at: Date | string | null
    sent: number
    hard: number
    complaints: number
  }>(sql`
    with counts as (
      select e.tenant_id,
        count(*) filter (where e.type = 'sent')::int as sent,
        count(*) filter (where e.type = 'bounced' and e.detail->>'kind' = 'hard')::int as hard,
        count(*) filter (where e.type = 'complained')::int as complaints
      from message_events e
      join tenants t on t.id = e.tenant_id
      where e.at >= now() - ${hours}::int * interval '1 hour'
        and e.at >= coalesce(t.reputation_resumed_at, '-infinity')
        and e.type in ('sent', 'bounced', 'complained')
      group by e.tenant_id
    )
    select t.id as tenant_id, t.reputation_stage as stage, t.reputation_resumed_at as resumed_at,
      coalesce(c.sent, 0) as sent, coalesce(c.hard, 0) as hard, coalesce(c.complaints, 0) as complaints
    from tenants t
    left join counts c on c.tenant_id = t.id
    where c.tenant_id is not null or t.reputation_stage <> 'ok'
      or t.reputation_resumed_at >= ${resumedSince?.toISOString() ?? 'infinity'}::timestamptz
    order by t.id`)
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    stage: row.stage,
    resumedAt: row.resumed_at === null ? null : new Date(row.resumed_at),
    counts: { sent: row.sent, hardBounces: row.hard, complaints: row.complaints },
  }))
}

/**
 * Every tenant of either window with both windows' counts. A tenant resumed after the week was read
 * has its week counted from the resume, which the day's read already did: the week's counts from
 * before the resume (those that paused it) must not pause it again.
 */
function mergeWindows(
  day: readonly WindowRow[],
  week: { readAt: Date; rows: readonly WindowRow[] },
): TenantReputationCounts[] {
  const byTenant = new Map<string, TenantReputationCounts>()
  // A tenant only in the week's read has no event in the last day and is at `ok` now (the day's read
  // lists every tenant that is not).
  for (const row of week.rows) {
    byTenant.set(row.tenantId, {
      tenantId: row.tenantId,
      stage: 'ok',
      windows: { day: NOTHING, week: row.counts },
    })
  }
  for (const row of day) {
    const resumedSinceWeek = row.resumedAt !== null && row.resumedAt >= week.readAt
    const weekCounts = resumedSinceWeek ? row.counts : (byTenant.get(row.tenantId)?.windows.week ?? NOTHING)
    byTenant.set(row.tenantId, {
      tenantId: row.tenantId,
      stage: row.stage,
      windows: { day: row.counts, week: weekCounts },
    })
  }
  return [...byTenant.values()].sort((a, b) => a.tenantId.localeCompare(b.tenantId))
}

/** Both windows read now (`createReputationStore` keeps the week's between passes). */
export async function readReputationCounts(db: Executor): Promise<TenantReputationCounts[]> {
  const readAt = new Date()
  const week = await readWindow(db, 'week', null)
  return mergeWindows(await readWindow(db, 'day', readAt), { readAt, rows: week })
}

/**
 * The stage change and its audit entry in one transaction, only if the tenant is still at `from`.
 * The tenant's active-set row is stamped (a fresh `seq`), so the bulk pacer's next incremental read
 * sees the change at once: a slowed tenant's cut weight, a resumed tenant back in the set.
 */
export async function changeReputationStage(
  db: Database,
  change: StageChange,
  notices: ReputationNotices,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const moved = await tx
      .update(tenants)
      .set({ reputationStage: change.to, reputationReason: change.reason, reputationChangedAt: sql`now()` })
      .where(and(eq(tenants.id, change.tenantId), eq(tenants.reputationStage, change.from)))
      .returning({ id: tenants.id })
    if (moved.length === 0) return false
    await stampActiveTenant(tx, change.tenantId)
    if (change.to === 'pause') await pauseSendingCampaigns(tx, change.tenantId)
    await reportReputation(tx, {
      tenantId: change.tenantId,
      stage: change.to,
      previousStage: change.from,
      reason: change.reason,
      finding: change.finding,
    })
    if (change.to !== 'ok' && isWorse(change.to, change.from)) {
      // The tenant's owners and admins hear of a worse stage by mail, committed with the change.
      const platformTenantId = await ensurePlatformTenant(tx, { name: notices.platformTenantName })
      const notice = reputationNotice({ stage: change.to, reason: change.reason, appUrl: notices.appUrl })
      await queueTenantNotices(tx, change.tenantId, platformTenantId, notice)
    }
    await insertTenantAuditEntry(tx, {
      tenantId: change.tenantId,
      entry: {
        actorUserId: null,
        actor: REPUTATION_GUARDRAIL_ACTOR,
        action: TENANT_AUDIT_ACTIONS.reputationChange,
        targetType: 'tenant',
        targetId: change.tenantId,
        reason: change.reason,
        details: { from: change.from, to: change.to, finding: change.finding },
      },
    })
    return true
  })
}

/** A fresh `seq` and xid on the tenant's active-set row, if it has one (as a new pending row would). */
export async function stampActiveTenant(db: Executor, tenantId: string): Promise<void> {
  await db.execute(sql`
    update bulk_backlog_tenants set seq = nextval('bulk_backlog_seq'), changed_xid = pg_current_xact_id()
    where tenant_id = ${tenantId}`)
}

/**
 * `tenant.reputation` to the tenant's webhook endpoints, in the transaction that changed the stage
 * (the outbox rule of every event): where the tenant is now, where it was, and why.
 */
export async function reportReputation(
  tx: Executor,
  input: {
    tenantId: string
    stage: ReputationStage
    previousStage: ReputationStage
    reason: string
    finding?: StageChange['finding']
    resumedByAdmin?: boolean
  },
): Promise<void> {
  await insertWebhookDeliveries(tx, {
    tenantId: input.tenantId,
    type: 'tenant.reputation',
    data: {
      stage: input.stage,
      previousStage: input.previousStage,
      reason: input.reason,
      ...(input.finding
        ? {
            window: input.finding.window,
            signal: input.finding.signal,
            rate: input.finding.rate,
            threshold: input.finding.threshold,
            sent: input.finding.sent,
          }
        : {}),
      ...(input.resumedByAdmin ? { resumedByAdmin: true } : {}),
    },
  })
}

export interface GuardedTenant {
  tenantId: string
  name: string
  stage: ReputationStage
  reason: string | null
  changedAt: Date | null
}

/** The tenants the reputation guardrail has moved from `ok`, the most restricted first, then the latest. */
export async function listGuardedTenants(db: Executor): Promise<GuardedTenant[]> {
  const rows = await db.execute<{
    tenant_id: string
    name: string
    stage: ReputationStage
    reason: string | null
    changed_at: Date | null
  }>(sql`
    select id as tenant_id, name, reputation_stage as stage, reputation_reason as reason,
      reputation_changed_at as changed_at
    from tenants
    where reputation_stage <> 'ok'
    order by case reputation_stage when 'pause' then 0 when 'slow' then 1 else 2 end,
      reputation_changed_at desc nulls last, id`)
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    name: row.name,
    stage: row.stage,
    reason: row.reason,
    changedAt: row.changed_at === null ? null : new Date(row.changed_at),
  }))
}

/**
 * A paused tenant's campaigns that are `sending` read `paused` (their pending mail waits; nothing is
 * cancelled). Run at the pause and on every pass while it lasts (`checkReputation`'s store), so a
 * campaign whose dispatch finished after the pause reads `paused` within a pass too.
 */
export async function pauseSendingCampaigns(db: Executor, tenantId?: string): Promise<number> {
  const only = tenantId === undefined ? sql`` : sql`and c.tenant_id = ${tenantId}`
  const rows = await db.execute<{ id: string }>(sql`
    update campaigns c set status = 'paused', updated_at = now()
    from tenants t
    where t.id = c.tenant_id and t.reputation_stage = 'pause' and c.status = 'sending' ${only}
    returning c.id`)
  return rows.length
}

/** A resumed tenant's `paused` campaigns send again (`sending`: the completion check takes them up). */
export async function resumePausedCampaigns(db: Executor, tenantId: string): Promise<number> {
  const rows = await db.execute<{ id: string }>(sql`
    update campaigns set status = 'sending', updated_at = now()
    where tenant_id = ${tenantId} and status = 'paused'
    returning id`)
  return rows.length
}
