import type { AuditActor } from '@fairlane/core'
import { and, desc, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { tenantAuditLog } from '../schema'

export interface TenantAuditEntry {
  /** The user who acted (no foreign key: the entry outlives the user); `actor` is their email then. */
  actorUserId: string | null
  actor: string
  /** `<resource>.<verb>`: `contact.resubscribe`. */
  action: string
  targetType: string
  targetId: string
  reason?: string | null
  details?: Record<string, unknown>
  /** The client address the action came from; null or left out for a job. */
  ipAddress?: string | null
}

/** The entry's who, from core's `AuditActor` (a user's email, or `API key <prefix>`). */
export function auditWho(actor: AuditActor): Pick<TenantAuditEntry, 'actorUserId' | 'actor' | 'ipAddress'> {
  return { actorUserId: actor.userId, actor: actor.label, ipAddress: actor.ipAddress }
}

/**
 * Appends to the tenant's audit log. Pass the transaction of the action itself so the entry exists
 * exactly when the action happened.
 */
export async function insertTenantAuditEntry(
  db: Executor,
  input: { tenantId: string; entry: TenantAuditEntry },
): Promise<{ id: number }> {
  const { entry } = input
  const [row] = await db
    .insert(tenantAuditLog)
    .values({
      tenantId: input.tenantId,
      ...entry,
      reason: entry.reason ?? null,
      details: entry.details ?? null,
      ipAddress: entry.ipAddress ?? null,
    })
    .returning({ id: tenantAuditLog.id })
  if (!row) throw new Error('insert into tenant_audit_log returned no row')
  return row
}

/** What was done to one of the tenant's resources, newest first. */
export async function listTenantAudit(
  db: Executor,
  input: { tenantId: string; targetType: string; targetId: string; limit: number },
) {
  return db
    .select({
      id: tenantAuditLog.id,
      actor: tenantAuditLog.actor,
      action: tenantAuditLog.action,
      reason: tenantAuditLog.reason,
      details: tenantAuditLog.details,
      createdAt: tenantAuditLog.createdAt,
    })
    .from(tenantAuditLog)
    .where(
      and(
        eq(tenantAuditLog.tenantId, input.tenantId),
        eq(tenantAuditLog.targetType, input.targetType),
        eq(tenantAuditLog.targetId, input.targetId),
      ),
    )
    .orderBy(desc(tenantAuditLog.id))
    .limit(input.limit)
}
