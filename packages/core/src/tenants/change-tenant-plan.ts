import { platformActorLabel, TENANT_AUDIT_ACTIONS } from '../audit/audit-actions'
import { auditedPlan, nextPlan, type PlanChange } from './plan-change'
import type { AdminTenant, PlatformAdmin, TenantAdminDeps, TenantAdminTransaction } from './ports'
import { lockedTenant } from './tenant-not-found'

export interface ChangeTenantPlanInput extends PlanChange {
  tenantId: string
  actor: PlatformAdmin
}

/**
 * Moves a tenant to a named plan and/or sets fields of its plan by hand (see `nextPlan`), on `tx`:
 * the row is locked first, so two changes at once apply one after the other and each audit entry's
 * `before` is what the change really replaced. The platform's audit log and the tenant's own get an
 * entry with before and after; a change that changes nothing writes none.
 */
export async function changeTenantPlanIn(
  tx: TenantAdminTransaction,
  input: ChangeTenantPlanInput,
  deps: Pick<TenantAdminDeps, 'plans' | 'clock'>,
): Promise<AdminTenant> {
  const before = await lockedTenant(tx, input.tenantId)
  const next = nextPlan(before, input, deps.plans)
  const after = await tx.setPlan({ tenantId: before.id, ...next, now: deps.clock.now() })
  const details = { before: auditedPlan(before), after: auditedPlan(after) }
  if (JSON.stringify(details.before) === JSON.stringify(details.after)) return after
  await tx.adminAudit({
    actor: input.actor.label,
    action: 'tenant.plan.update',
    targetType: 'tenant',
    targetId: before.id,
    details,
  })
  // The tenant's own log says the platform changed its plan, in the same transaction.
  await tx.tenantAudit(
    { tenantId: before.id },
    {
      actor: platformActorLabel(input.actor.label),
      action: TENANT_AUDIT_ACTIONS.planUpdate,
      targetType: 'tenant',
      targetId: before.id,
      details,
      ipAddress: input.actor.ipAddress,
    },
  )
  return after
}

/** `changeTenantPlanIn` in a transaction of its own. */
export function changeTenantPlan(input: ChangeTenantPlanInput, deps: TenantAdminDeps): Promise<AdminTenant> {
  return deps.store.transaction((tx) => changeTenantPlanIn(tx, input, deps))
}
