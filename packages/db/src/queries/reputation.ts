import {
  DEFAULT_GUARDRAIL_THRESHOLDS,
  type GuardrailThresholds,
  isWorse,
  REPUTATION_GUARDRAIL_ACTOR,
  REPUTATION_WINDOWS,
  type ReputationStage,
  type ReputationStore,
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
export function createReputationStore(db: Database, notices: ReputationNotices): ReputationStore {
  return {
    readThresholds: () => readGuardrailThresholds(db),
    readCounts: () => readReputationCounts(db),
    changeStage: (change) => changeReputationStage(db, change, notices),
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
 * Sends, hard bounces and complaints per tenant over the last 24 hours and 7 days (each from the
 * tenant's last resume at the earliest: a resumed tenant is judged afresh), in one pass over the
 * week's feedback events through the BRIN on `at` (see `tenantFeedbackSince` for its cost), and
 * every tenant not at `ok` even without events (so a warning lifts once its mail has aged out).
 */
export async function readReputationCounts(db: Executor): Promise<TenantReputationCounts[]> {
  const rows = await db.execute<{
    tenant_id: string
    stage: ReputationStage
    day_sent: number
    day_hard: number
    day_complaints: number
    week_sent: number
    week_hard: number
    week_complaints: number
  }>(sql`
    with windows as (
      select t.id as tenant_id,
        greatest(now() - ${REPUTATION_WINDOWS.day}::int * interval '1 hour', coalesce(t.reputation_resumed_at, '-infinity')) as day_from,
        greatest(now() - ${REPUTATION_WINDOWS.week}::int * interval '1 hour', coalesce(t.reputation_resumed_at, '-infinity')) as week_from
      from tenants t
    ), counts as (
      select e.tenant_id,
        count(*) filter (where e.type = 'sent' and e.at >= w.day_from)::int as day_sent,
        count(*) filter (where e.type = 'bounced' and e.detail->>'kind' = 'hard' and e.at >= w.day_from)::int as day_hard,
        count(*) filter (where e.type = 'complained' and e.at >= w.day_from)::int as day_complaints,
        count(*) filter (where e.type = 'sent' and e.at >= w.week_from)::int as week_sent,
        count(*) filter (where e.type = 'bounced' and e.detail->>'kind' = 'hard' and e.at >= w.week_from)::int as week_hard,
        count(*) filter (where e.type = 'complained' and e.at >= w.week_from)::int as week_complaints
      from message_events e
      join windows w on w.tenant_id = e.tenant_id
      where e.at >= now() - ${REPUTATION_WINDOWS.week}::int * interval '1 hour'
        and e.type in ('sent', 'bounced', 'complained')
      group by e.tenant_id
    )
    select t.id as tenant_id, t.reputation_stage as stage,
      coalesce(c.day_sent, 0) as day_sent, coalesce(c.day_hard, 0) as day_hard,
      coalesce(c.day_complaints, 0) as day_complaints, coalesce(c.week_sent, 0) as week_sent,
      coalesce(c.week_hard, 0) as week_hard, coalesce(c.week_complaints, 0) as week_complaints
    from tenants t
    left join counts c on c.tenant_id = t.id
    where c.tenant_id is not null or t.reputation_stage <> 'ok'
    order by t.id`)
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    stage: row.stage,
    windows: {
      day: { sent: row.day_sent, hardBounces: row.day_hard, complaints: row.day_complaints },
      week: { sent: row.week_sent, hardBounces: row.week_hard, complaints: row.week_complaints },
    },
  }))
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
