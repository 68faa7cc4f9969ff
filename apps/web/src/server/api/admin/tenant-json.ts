import type { TenantView } from '@fairlane/db/queries/tenants'

export function tenantJson(tenant: TenantView) {
  return {
    id: tenant.id,
    name: tenant.name,
    plan: tenant.plan,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
    /** False while held for approval (SIGNUP_MODE=approve); `PATCH { "approved": true }` lets it send. */
    approved: tenant.approvedAt !== null,
    platform: tenant.isPlatform,
    /** MX mode: the dedicated egress pool (EGRESS_POOLS) it is pinned to; null: the shared pool. */
    egressPool: tenant.egressPool,
  }
}
