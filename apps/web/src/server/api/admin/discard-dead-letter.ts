import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { authenticateAdmin } from '../../auth/admin-token'
import { respond } from '../../http/errors'
import { findDeadLetterJob, readReason } from './dead-letter-action'
import { readDeadLetter } from './dead-letter-view'
import type { AdminDeps } from './deps'

/**
 * `DELETE /api/admin/dlq/:id` `{ reason? }`: forgets a dead letter (the message stays `failed`). The job is
 * removed inside the audit entry's transaction, so a failed removal leaves no entry claiming it happened.
 */
export function discardDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = authenticateAdmin(request, deps.adminToken)
    const reason = await readReason(request)
    const job = await findDeadLetterJob(deps, id)
    const read = readDeadLetter(job)
    const payload = read.ok ? read.payload : null
    await deps.db.transaction(async (tx) => {
      await insertAuditEntry(tx, {
        actor,
        action: 'dlq.discard',
        targetType: payload ? 'message' : 'dead-letter',
        targetId: payload?.messageId ?? id,
        reason,
        details: { dlqJobId: id, queue: payload?.queue ?? null, tenantId: payload?.tenantId ?? null },
      })
      await job.remove()
    })
    deps.logger.info({ dlqJobId: id, messageId: payload?.messageId, actor }, 'dead letter discarded')
    return Response.json({ id, discarded: true }, { headers: { 'cache-control': 'no-store' } })
  })
}
