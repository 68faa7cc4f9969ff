import type { Executor } from '../client'
import { adminAuditLog } from '../schema'

export interface AuditEntry {
  /** Who: `admin-token` for the ADMIN_TOKEN bearer, the platform admin's email for a console session. */
  actor: string
  /** What, as `<resource>.<verb>`: `dlq.replay`, `dlq.discard`, `tenant.create`, `tenant.plan.update`. */
  action: string
  targetType: string
  targetId: string
  reason?: string | null
  details?: Record<string, unknown>
}

/**
 * Appends to the platform audit log. No tenant id: the log is the platform operator's, and an
 * entry may concern no tenant at all; the target names what was touched. Pass the transaction of
 * the action itself so the entry exists exactly when the action happened.
 */
export async function insertAuditEntry(db: Executor, entry: AuditEntry): Promise<{ id: number }> {
  const [row] = await db
    .insert(adminAuditLog)
    .values({ ...entry, reason: entry.reason ?? null, details: entry.details ?? null })
    .returning({ id: adminAuditLog.id })
  if (!row) throw new Error('insert into admin_audit_log returned no row')
  return row
}
