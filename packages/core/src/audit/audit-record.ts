import type { TenantAuditAction } from './audit-actions'
import type { AuditActor } from './audit-actor'

/** One entry of the tenant's audit log: who did what to which target. */
export interface AuditRecord {
  actor: AuditActor
  action: TenantAuditAction
  targetType: string
  targetId: string
  details?: Record<string, unknown>
}

/**
 * The audit entry of a change, made from what the change wrote (a new row's id, the state after).
 * A store method that takes one writes the entry in the change's own transaction: the entry exists
 * exactly when the change does, and a change rolled back leaves no entry describing it.
 */
export type AuditOf<T> = (changed: T) => AuditRecord
