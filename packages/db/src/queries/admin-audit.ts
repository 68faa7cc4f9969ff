import { and, desc, eq, type SQL } from 'drizzle-orm'
import type { Executor } from '../client'
import { adminAuditLog } from '../schema'

export interface AuditLogView {
  id: number
  actor: string
  action: string
  targetType: string | null
  targetId: string | null
  reason: string | null
  details: Record<string, unknown> | null
  createdAt: Date
}

/**
 * The newest audit entries, optionally only those of one action prefix (`dlq.`) or one target. Reads
 * `admin_audit_log_created_at_idx` (or the target index) backwards; never the whole log.
 */
export async function listAuditEntries(
  db: Executor,
  query: { limit: number; targetType?: string | undefined; targetId?: string | undefined },
): Promise<AuditLogView[]> {
  const conditions: SQL[] = []
  if (query.targetType !== undefined) conditions.push(eq(adminAuditLog.targetType, query.targetType))
  if (query.targetId !== undefined) conditions.push(eq(adminAuditLog.targetId, query.targetId))
  return db
    .select({
      id: adminAuditLog.id,
      actor: adminAuditLog.actor,
      action: adminAuditLog.action,
      targetType: adminAuditLog.targetType,
      targetId: adminAuditLog.targetId,
      reason: adminAuditLog.reason,
      details: adminAuditLog.details,
      createdAt: adminAuditLog.createdAt,
    })
    .from(adminAuditLog)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(adminAuditLog.createdAt), desc(adminAuditLog.id))
    .limit(query.limit)
}
