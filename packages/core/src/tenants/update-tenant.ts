import { approveTenantIn } from './approve-tenant'
import { changeTenantPlanIn } from './change-tenant-plan'
import type { PlanChange } from './plan-change'
import type { AdminTenant, PlatformAdmin, TenantAdminDeps } from './ports'
import { checkEgressPool, type EgressPoolDeps, setTenantEgressPoolIn } from './set-tenant-egress-pool'
import { lockedTenant } from './tenant-not-found'

export interface UpdateTenantInput {
  tenantId: string
  actor: PlatformAdmin
  /** Only `true`: approval cannot be withdrawn. */
  approved?: true | undefined
  egressPool?: string | null | undefined
  plan?: PlanChange | undefined
}

/**
 * `PATCH /api/admin/tenants/:id`: approval, egress pool and plan in one transaction, each change with
 * its own audit entries; any refusal (an unknown pool or plan) leaves everything as it was.
 */
export async function updateTenant(
  input: UpdateTenantInput,
  deps: TenantAdminDeps & EgressPoolDeps,
): Promise<AdminTenant> {
  if (input.egressPool !== undefined) checkEgressPool(input.egressPool, deps.egressPools)
  return deps.store.transaction(async (tx) => {
    let tenant = await lockedTenant(tx, input.tenantId)
    const who = { tenantId: input.tenantId, actor: input.actor }
    if (input.approved) tenant = await approveTenantIn(tx, who, deps)
    if (input.egressPool !== undefined) {
      tenant = await setTenantEgressPoolIn(tx, { ...who, egressPool: input.egressPool }, deps)
    }
    if (input.plan) tenant = await changeTenantPlanIn(tx, { ...who, ...input.plan }, deps)
    return tenant
  })
}
