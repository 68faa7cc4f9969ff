import type { AdminTenant, TenantAdminStore, TenantAdminTransaction } from '@fairlane/core'
import { readOverrides } from '@fairlane/core'
import { and, desc, eq, gte, isNull, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { adminAuditLog, apiKeys, type Tenant, tenants } from '../schema'
import { createApiKey } from './api-keys'
import { insertAuditEntry } from './audit-log'
import { reportReputation, resumePausedCampaigns, stampActiveTenant } from './reputation'
import { createDomainStore } from './sending-domains'
import { insertTenantAuditEntry } from './tenant-audit'

/**
 * The tenant-admin use cases' store (`@fairlane/core` `tenants/`): each use case's transaction, with
 * the writes to the plan columns, the key, the sending domain and both audit logs on it.
 */

const columns = {
  id: tenants.id,
  name: tenants.name,
  planName: tenants.planName,
  planOverrides: tenants.planOverrides,
  ratePerSec: tenants.ratePerSec,
  burst: tenants.burst,
  weight: tenants.weight,
  txRatePerSec: tenants.txRatePerSec,
  txBurst: tenants.txBurst,
  quotaDaily: tenants.quotaDaily,
  quotaMonthly: tenants.quotaMonthly,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
  approvedAt: tenants.approvedAt,
  isPlatform: tenants.isPlatform,
  egressPool: tenants.egressPool,
  reputationStage: tenants.reputationStage,
  reputationReason: tenants.reputationReason,
  reputationChangedAt: tenants.reputationChangedAt,
  reputationResumedAt: tenants.reputationResumedAt,
}

type Row = Pick<Tenant, keyof typeof columns>

export function adminTenantOf(row: Row): AdminTenant {
  const {
    ratePerSec,
    burst,
    weight,
    txRatePerSec,
    txBurst,
    quotaDaily,
    quotaMonthly,
    planOverrides,
    reputationStage,
    reputationReason,
    reputationChangedAt,
    reputationResumedAt,
    ...rest
  } = row
  return {
    ...rest,
    planOverrides: readOverrides(planOverrides),
    plan: { ratePerSec, burst, weight, txRatePerSec, txBurst, quotaDaily, quotaMonthly },
    reputation: {
      stage: reputationStage,
      reason: reputationReason,
      changedAt: reputationChangedAt,
      resumedAt: reputationResumedAt,
    },
  }
}

/** A tenant as the admin API answers it, without a lock (the GET of one tenant). */
export async function findAdminTenant(
  db: Executor,
  query: { tenantId: string },
): Promise<AdminTenant | null> {
  const [row] = await db.select(columns).from(tenants).where(eq(tenants.id, query.tenantId))
  return row ? adminTenantOf(row) : null
}

function one(rows: Row[]): AdminTenant {
  const [row] = rows
  if (!row) throw new Error('the tenant row disappeared inside its own locked transaction')
  return adminTenantOf(row)
}

function transactionOn(tx: Executor): TenantAdminTransaction {
  return {
    async lockTenant({ tenantId }) {
      const [row] = await tx.select(columns).from(tenants).where(eq(tenants.id, tenantId)).for('update')
      return row ? adminTenantOf(row) : null
    },
    async insertTenant({ name, planName, planOverrides, plan }) {
      return one(
        await tx
          .insert(tenants)
          .values({ name, planName, planOverrides, ...plan })
          .returning(columns),
      )
    },
    async setPlan({ tenantId, planName, planOverrides, plan, now }) {
      return one(
        await tx
          .update(tenants)
          .set({ planName, planOverrides, ...plan, updatedAt: now })
          .where(eq(tenants.id, tenantId))
          .returning(columns),
      )
    },
    async approve({ tenantId, now }) {
      return one(
        await tx
          .update(tenants)
          .set({ approvedAt: now, updatedAt: now })
          .where(eq(tenants.id, tenantId))
          .returning(columns),
      )
    },
    async setEgressPool({ tenantId, egressPool, now }) {
      return one(
        await tx
          .update(tenants)
          .set({ egressPool, updatedAt: now })
          .where(eq(tenants.id, tenantId))
          .returning(columns),
      )
    },
    async resumeReputation({ tenantId, from, reason, now }) {
      const resumed = one(
        await tx
          .update(tenants)
          .set({
            reputationStage: 'ok',
            reputationReason: reason,
            reputationChangedAt: now,
            reputationResumedAt: now,
            updatedAt: now,
          })
          .where(eq(tenants.id, tenantId))
          .returning(columns),
      )
      await stampActiveTenant(tx, tenantId)
      await resumePausedCampaigns(tx, tenantId)
      await reportReputation(tx, {
        tenantId,
        stage: 'ok',
        previousStage: from,
        reason,
        resumedByAdmin: true,
      })
      return resumed
    },
    insertApiKey: (input) => createApiKey(tx, input),
    async hasActiveApiKey({ tenantId, keyHash }) {
      const [row] = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
        .limit(1)
      return row !== undefined
    },
    async adminAudit(entry) {
      await insertAuditEntry(tx, entry)
    },
    async tenantAudit({ tenantId }, entry) {
      await insertTenantAuditEntry(tx, { tenantId, entry: { ...entry, actorUserId: null } })
    },
    async lockIdempotencyKey(key) {
      // Transaction-scoped: released at commit or rollback, never left behind by a crashed request.
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`admin:tenant.create:${key}`}, 0))`,
      )
    },
    async findProvisioned({ idempotencyKey, since }) {
      // The key lives in the provisioning's own audit entry (no table of its own): the window is
      // read through the created_at index, and the lock above makes the lookup and insert one step.
      const [row] = await tx
        .select({ tenantId: adminAuditLog.targetId, details: adminAuditLog.details })
        .from(adminAuditLog)
        .where(
          and(
            gte(adminAuditLog.createdAt, since),
            eq(adminAuditLog.action, 'tenant.create'),
            sql`${adminAuditLog.details}->>'idempotencyKey' = ${idempotencyKey}`,
          ),
        )
        .orderBy(desc(adminAuditLog.id))
        .limit(1)
      if (!row?.tenantId) return null
      const requestHash = row.details?.requestHash
      return { tenantId: row.tenantId, requestHash: typeof requestHash === 'string' ? requestHash : '' }
    },
    domains: createDomainStore(tx),
  }
}

export function createTenantAdminStore(db: Database): TenantAdminStore {
  return { transaction: (work) => db.transaction((tx) => work(transactionOn(tx))) }
}
