import { validationFailed } from '../errors/app-error'
import type { AdminTenant, PlatformAdmin, TenantAdminDeps, TenantAdminTransaction } from './ports'
import { lockedTenant } from './tenant-not-found'

export interface SetEgressPoolInput {
  tenantId: string
  /** A pool of EGRESS_POOLS, or null for the shared one. */
  egressPool: string | null
  actor: PlatformAdmin
}

export interface EgressPoolDeps extends Pick<TenantAdminDeps, 'clock'> {
  /** EGRESS_POOLS' names. */
  egressPools: readonly string[]
}

/** 400 naming `egressPool` unless it is null or one of the configured pools. */
export function checkEgressPool(egressPool: string | null, pools: readonly string[]): void {
  if (egressPool === null || pools.includes(egressPool)) return
  throw validationFailed([
    {
      path: 'egressPool',
      message:
        pools.length === 0
          ? 'no egress pools are configured (EGRESS_POOLS)'
          : `must be one of ${pools.join(', ')} (EGRESS_POOLS), or null for the shared pool`,
    },
  ])
}

/** MX mode: pins the tenant to a dedicated egress pool or back to the shared one, on `tx`, audited with before and after. */
export async function setTenantEgressPoolIn(
  tx: TenantAdminTransaction,
  input: SetEgressPoolInput,
  deps: EgressPoolDeps,
): Promise<AdminTenant> {
  checkEgressPool(input.egressPool, deps.egressPools)
  const before = await lockedTenant(tx, input.tenantId)
  if (before.egressPool === input.egressPool) return before
  const after = await tx.setEgressPool({
    tenantId: before.id,
    egressPool: input.egressPool,
    now: deps.clock.now(),
  })
  await tx.adminAudit({
    actor: input.actor.label,
    action: 'tenant.egress_pool.update',
    targetType: 'tenant',
    targetId: before.id,
    details: { before: before.egressPool, after: input.egressPool },
  })
  return after
}

export function setTenantEgressPool(
  input: SetEgressPoolInput,
  deps: TenantAdminDeps & EgressPoolDeps,
): Promise<AdminTenant> {
  return deps.store.transaction((tx) => setTenantEgressPoolIn(tx, input, deps))
}
