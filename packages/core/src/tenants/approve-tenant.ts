import type { AdminTenant, PlatformAdmin, TenantAdminDeps, TenantAdminTransaction } from './ports'
import { lockedTenant } from './tenant-not-found'

/**
 * Lets a held tenant send (SIGNUP_MODE=approve), on `tx`, with its audit entry. Approval is one way
 * and happens once: approving an approved tenant keeps its first time and writes no entry.
 */
export async function approveTenantIn(
  tx: TenantAdminTransaction,
  input: { tenantId: string; actor: PlatformAdmin },
  deps: Pick<TenantAdminDeps, 'clock'>,
): Promise<AdminTenant> {
  const before = await lockedTenant(tx, input.tenantId)
  if (before.approvedAt !== null) return before
  const after = await tx.approve({ tenantId: before.id, now: deps.clock.now() })
  await tx.adminAudit({
    actor: input.actor.label,
    action: 'tenant.approve',
    targetType: 'tenant',
    targetId: before.id,
    details: { before: { approved: false }, after: { approved: true } },
  })
  return after
}

export function approveTenant(
  input: { tenantId: string; actor: PlatformAdmin },
  deps: TenantAdminDeps,
): Promise<AdminTenant> {
  return deps.store.transaction((tx) => approveTenantIn(tx, input, deps))
}
