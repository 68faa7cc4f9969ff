import { type AdminTenant, type PlanJson, planAnswer } from '@fairlane/core'

/** A tenant as `PATCH /api/admin/tenants/:id` answers it. */
export interface AdminTenantJson {
  id: string
  name: string
  /** The named plan (PLANS) the tenant is on. */
  planName: string
  plan: PlanJson
  /** The fields set by hand for this tenant, by column name (`ratePerSec`, `txRatePerSec`, `quotaDaily`, …). */
  planOverrides: Record<string, number | null>
  createdAt: string
  updatedAt: string
  /** False while held for approval (SIGNUP_MODE=approve); `PATCH { "approved": true }` lets it send. */
  approved: boolean
  platform: boolean
  /** MX mode: the dedicated egress pool (EGRESS_POOLS) it is pinned to; null: the shared pool. */
  egressPool: string | null
  /**
   * The reputation guardrail's stage (`ok`, `warn`, `slow`, `pause`) and why; a paused or slowed
   * tenant is resumed by `POST /api/admin/tenants/:id/resume { "reason" }`.
   */
  reputation: {
    stage: AdminTenant['reputation']['stage']
    reason: string | null
    changedAt: string | null
    resumedAt: string | null
  }
}

export function tenantJson(tenant: AdminTenant): AdminTenantJson {
  return {
    id: tenant.id,
    name: tenant.name,
    planName: tenant.planName,
    plan: planAnswer(tenant.plan),
    planOverrides: tenant.planOverrides,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
    approved: tenant.approvedAt !== null,
    platform: tenant.isPlatform,
    egressPool: tenant.egressPool,
    reputation: {
      stage: tenant.reputation.stage,
      reason: tenant.reputation.reason,
      changedAt: tenant.reputation.changedAt?.toISOString() ?? null,
      resumedAt: tenant.reputation.resumedAt?.toISOString() ?? null,
    },
  }
}
