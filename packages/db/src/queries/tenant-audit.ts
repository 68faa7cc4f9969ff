import type { AuditActor, AuditRecord } from '@fairlane/core'
import { and, desc, eq, gte, ilike, lt } from 'drizzle-orm'
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

/**
 * Writes core's `AuditRecord` (see `AuditOf`): pass the transaction of the change it records, so a
 * change and its entry commit or roll back together.
 */
export async function insertAuditRecord(
  db: Executor,
  input: { tenantId: string; record: AuditRecord },
): Promise<void> {
  const { actor, ...entry } = input.record
  await insertTenantAuditEntry(db, { tenantId: input.tenantId, entry: { ...auditWho(actor), ...entry } })
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

export interface TenantAuditFilter {
  /** An exact action (`webhook.update`). */
  action?: string | undefined
  /** Part of the actor's label, any case (`alice@`, `API key fl_abc`). */
  actor?: string | undefined
  /** Entries at or after `from`, and before `to`. */
  from?: Date | undefined
  to?: Date | undefined
}

export interface TenantAuditRow {
  id: number
  actor: string
  action: string
  targetType: string
  targetId: string
  reason: string | null
  details: Record<string, unknown> | null
  ipAddress: string | null
  createdAt: Date
}

/**
 * One page of the tenant's audit log, newest first, by keyset on the id (the identity column grows
 * with time, and `(tenant_id, id)` is indexed): `beforeId` is the last id of the previous page. Up to
 * `limit + 1` rows, so the caller knows whether there is a next page.
 */
export async function listTenantAuditPage(
  db: Executor,
  query: { tenantId: string; filter: TenantAuditFilter; beforeId?: number | undefined; limit: number },
): Promise<TenantAuditRow[]> {
  const { filter } = query
  const conditions = [eq(tenantAuditLog.tenantId, query.tenantId)]
  if (query.beforeId !== undefined) conditions.push(lt(tenantAuditLog.id, query.beforeId))
  if (filter.action) conditions.push(eq(tenantAuditLog.action, filter.action))
  if (filter.actor) {
    // The typed text is matched literally: % and _ are not wildcards here.
    const literal = filter.actor.replace(/[\\%_]/g, (char) => `\\${char}`)
    conditions.push(ilike(tenantAuditLog.actor, `%${literal}%`))
  }
  if (filter.from) conditions.push(gte(tenantAuditLog.createdAt, filter.from))
  if (filter.to) conditions.push(lt(tenantAuditLog.createdAt, filter.to))
  return db
    .select({
      id: tenantAuditLog.id,
      actor: tenantAuditLog.actor,
      action: tenantAuditLog.action,
      targetType: tenantAuditLog.targetType,
      targetId: tenantAuditLog.targetId,
      reason: tenantAuditLog.reason,
      details: tenantAuditLog.details,
      ipAddress: tenantAuditLog.ipAddress,
      createdAt: tenantAuditLog.createdAt,
    })
    .from(tenantAuditLog)
    .where(and(...conditions))
    .orderBy(desc(tenantAuditLog.id))
    .limit(query.limit + 1)
}

/** The actions the tenant's log holds, A to Z (the audit page's filter choices). */
export async function listTenantAuditActions(db: Executor, query: { tenantId: string }): Promise<string[]> {
  const rows = await db
    .selectDistinct({ action: tenantAuditLog.action })
    .from(tenantAuditLog)
    .where(eq(tenantAuditLog.tenantId, query.tenantId))
    .orderBy(tenantAuditLog.action)
  return rows.map((row) => row.action)
}
