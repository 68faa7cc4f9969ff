import type { MessageStatus } from '@fairlane/core'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { type AuditLogView, listAuditEntries } from '@fairlane/db/queries/admin-audit'
import { messageStatuses } from '@fairlane/db/queries/admin-messages'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import type { AdminDeps } from './deps'

const auditQuery = z.strictObject({
  limit: z.coerce.number('must be a number').int('must be a whole number').min(1).max(200).default(20),
  targetType: z
    .enum(['message', 'tenant', 'dead-letter'], 'must be message, tenant or dead-letter')
    .optional(),
  targetId: z.string().min(1).max(200).optional(),
})

/** One entry of `GET /api/admin/audit`; `messageStatus` only on entries about a message. */
export type AuditEntryJson = Omit<AuditLogView, 'createdAt'> & {
  createdAt: string
  messageStatus?: MessageStatus | null
}

export function auditJson(entry: AuditLogView): AuditEntryJson {
  return { ...entry, createdAt: entry.createdAt.toISOString() }
}

/**
 * `GET /api/admin/audit?limit=&targetType=&targetId=` → the newest audit entries `[{ id, actor, action,
 * targetType, targetId, reason, details, createdAt, messageStatus? }]`; entries about a message carry
 * its status now, so a replay can be followed to `sent`.
 */
export function listAudit(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const query = auditQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams))
    if (!query.success) throw validationFailed(fieldIssues(query.error))
    const entries = await listAuditEntries(deps.db, query.data)
    const messageIds = entries
      .filter((entry) => entry.targetType === 'message' && entry.targetId !== null && isUuid(entry.targetId))
      .map((entry) => entry.targetId as string)
    const statuses = await messageStatuses(deps.db, { messageIds: [...new Set(messageIds)] })
    return Response.json(
      entries.map(
        (entry): AuditEntryJson => ({
          ...auditJson(entry),
          ...(entry.targetType === 'message' && entry.targetId
            ? { messageStatus: statuses.get(entry.targetId) ?? null }
            : {}),
        }),
      ),
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
