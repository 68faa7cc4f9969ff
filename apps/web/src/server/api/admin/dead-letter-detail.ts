import { listAuditEntries } from '@fairlane/db/queries/admin-audit'
import { type AdminMessageDetail, findMessageForAdmin } from '@fairlane/db/queries/admin-messages'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { type AuditEntryJson, auditJson } from './audit-log'
import { findDeadLetterJob } from './dead-letter-action'
import { type DeadLetterView, deadLetterView } from './dead-letter-view'
import type { AdminDeps } from './deps'

type InstantsAsText<T, K extends keyof T> = Omit<T, K> & {
  [P in K]: null extends T[P] ? string | null : string
}

/** The answer of `GET /api/admin/dlq/:id`, as its client reads it. */
export type DeadLetterDetailJson = DeadLetterView & {
  deadLetteredAt: string
  message: InstantsAsText<AdminMessageDetail, 'createdAt' | 'queuedAt' | 'sentAt' | 'failedAt'> | null
  history: AuditEntryJson[]
}

/**
 * `GET /api/admin/dlq/:id` → the dead letter as the list shows it, plus `message` (its row: addresses,
 * subject, template, variable names — never bodies or variable values, which may hold a login code —
 * status, attempts, timestamps; null when the row is gone), `deadLetteredAt` and the message's
 * `history` in the audit log.
 */
export function getDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const job = await findDeadLetterJob(deps, id)
    const view = deadLetterView(job)
    const messageId = view.messageId !== null && isUuid(view.messageId) ? view.messageId : null
    const [message, history] = messageId
      ? await Promise.all([
          findMessageForAdmin(deps.db, { messageId }),
          listAuditEntries(deps.db, { limit: 20, targetType: 'message', targetId: messageId }),
        ])
      : [null, []]
    const detail: DeadLetterDetailJson = {
      ...view,
      deadLetteredAt: new Date(job.timestamp).toISOString(),
      message: message && {
        ...message,
        createdAt: message.createdAt.toISOString(),
        queuedAt: message.queuedAt?.toISOString() ?? null,
        sentAt: message.sentAt?.toISOString() ?? null,
        failedAt: message.failedAt?.toISOString() ?? null,
      },
      history: history.map(auditJson),
    }
    return Response.json(detail, { headers: { 'cache-control': 'no-store' } })
  })
}
