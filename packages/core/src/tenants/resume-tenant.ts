import { platformActorLabel, TENANT_AUDIT_ACTIONS } from '../audit/audit-actions'
import { AppError, validationFailed } from '../errors'
import type { AdminTenant, PlatformAdmin, TenantAdminDeps, TenantAdminTransaction } from './ports'
import { lockedTenant } from './tenant-not-found'

/** A resume's reason: said in words, kept on both audit logs. */
export const RESUME_REASON_MAX_LENGTH = 500

export interface ResumeTenantInput {
  tenantId: string
  reason: string
  actor: PlatformAdmin
}

/**
 * The platform admin lets a tenant the reputation guardrail paused (or slowed) send its bulk mail
 * again, on `tx`: back to `ok`, its rates judged afresh from now (the bounces that paused it no
 * longer count), its reason on the platform's audit log and the tenant's own. A tenant at `ok` has
 * nothing to resume: a conflict, nothing written.
 */
export async function resumeTenantIn(
  tx: TenantAdminTransaction,
  input: ResumeTenantInput,
  deps: Pick<TenantAdminDeps, 'clock'>,
): Promise<AdminTenant> {
  const reason = input.reason.trim()
  if (reason.length === 0 || reason.length > RESUME_REASON_MAX_LENGTH) {
    throw validationFailed([
      { path: 'reason', message: `must say why, in 1 to ${RESUME_REASON_MAX_LENGTH} characters` },
    ])
  }
  const before = await lockedTenant(tx, input.tenantId)
  if (before.reputation.stage === 'ok') {
    throw new AppError('conflict', `Tenant ${before.id} is not paused or slowed: its reputation stage is ok`)
  }
  const after = await tx.resumeReputation({
    tenantId: before.id,
    from: before.reputation.stage,
    reason,
    now: deps.clock.now(),
  })
  const details = { from: before.reputation.stage, to: 'ok', finding: before.reputation.reason }
  await tx.adminAudit({
    actor: input.actor.label,
    action: TENANT_AUDIT_ACTIONS.reputationResume,
    targetType: 'tenant',
    targetId: before.id,
    reason,
    details,
  })
  await tx.tenantAudit(
    { tenantId: before.id },
    {
      actor: platformActorLabel(input.actor.label),
      action: TENANT_AUDIT_ACTIONS.reputationResume,
      targetType: 'tenant',
      targetId: before.id,
      reason,
      details,
      ipAddress: input.actor.ipAddress,
    },
  )
  return after
}

/** `resumeTenantIn` in a transaction of its own. */
export function resumeTenant(input: ResumeTenantInput, deps: TenantAdminDeps): Promise<AdminTenant> {
  return deps.store.transaction((tx) => resumeTenantIn(tx, input, deps))
}
