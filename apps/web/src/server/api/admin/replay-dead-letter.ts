import { AppError } from '@fairlane/core/errors'
import { insertPublishEvent, notifyOutbox } from '@fairlane/db/queries/accept-message'
import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { requeueFailedMessage } from '@fairlane/db/queries/dead-letters'
import { authenticateAdmin } from '../../auth/admin-token'
import { respond } from '../../http/errors'
import { findDeadLetterJob, readReason } from './dead-letter-action'
import { readDeadLetter } from './dead-letter-view'
import type { AdminDeps } from './deps'

/**
 * `POST /api/admin/dlq/:id/replay` `{ reason? }`: puts a failed message back on its lane, once. The
 * status change (WHERE status = 'failed', so a concurrent second replay changes nothing), the outbox
 * row with the next generation and the audit entry commit together; the relay publishes from there.
 * The dead letter is removed only after the commit: if that removal fails, the message is still
 * replayed, and a second replay is refused with 409 because the message is no longer failed.
 */
export function replayDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = authenticateAdmin(request, deps.adminToken)
    const reason = await readReason(request)
    const job = await findDeadLetterJob(deps, id)
    const read = readDeadLetter(job)
    if (!read.ok) {
      throw new AppError(
        'conflict',
        `Dead letter ${id} cannot be replayed: its payload is unreadable (${read.reason})`,
      )
    }
    const { messageId, tenantId, queue } = read.payload
    const now = deps.clock.now()
    const replayed = await deps.db.transaction(async (tx) => {
      const outcome = await requeueFailedMessage(tx, { tenantId, messageId, now })
      if (outcome.kind === 'not-found') {
        throw new AppError('not_found', `Message ${messageId} of dead letter ${id} no longer exists`)
      }
      if (outcome.kind === 'not-failed') {
        throw new AppError(
          'conflict',
          `Message ${messageId} is ${outcome.status}; only failed messages can be replayed`,
        )
      }
      await insertPublishEvent(tx, {
        v: 1,
        messageId,
        tenantId,
        lane: outcome.lane,
        generation: outcome.generation,
      })
      await insertAuditEntry(tx, {
        actor,
        action: 'dlq.replay',
        targetType: 'message',
        targetId: messageId,
        reason,
        details: { dlqJobId: id, queue, tenantId, generation: outcome.generation },
      })
      await notifyOutbox(tx)
      return outcome
    })
    try {
      await job.remove()
    } catch (error) {
      deps.logger.warn(
        { err: error, dlqJobId: id, messageId },
        'replayed, but the dead letter could not be removed',
      )
    }
    deps.logger.info({ dlqJobId: id, messageId, tenantId, actor }, 'dead letter replayed')
    return Response.json(
      { id, messageId, status: 'queued', lane: replayed.lane, generation: replayed.generation },
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
