import { AppError } from '@fairlane/core/errors'
import { insertPublishEvent, notifyOutbox } from '@fairlane/db/queries/accept-message'
import { findMessageLaneAndStatus } from '@fairlane/db/queries/admin-messages'
import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { requeueFailedMessage } from '@fairlane/db/queries/dead-letters'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { findDeadLetterJob, readReason } from './dead-letter-action'
import { readDeadLetter } from './dead-letter-view'
import type { AdminDeps } from './deps'

export interface Replayed {
  id: string
  messageId: string
  status: 'queued'
  lane: string
  generation: number
}

/**
 * `POST /api/admin/dlq/:id/replay` `{ reason? }`: puts a failed message back on its lane, once (see
 * `replayOne`). The console always sends a reason; a script with the bearer token may leave it out.
 */
export function replayDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const reason = await readReason(request)
    const replayed = await replayOne(deps, { id, actor, reason })
    return Response.json(replayed, { headers: { 'cache-control': 'no-store' } })
  })
}

/**
 * Replays one dead letter. The status change (WHERE status = 'failed', so a concurrent second replay
 * changes nothing), the outbox row with the next generation and the audit entry commit together; the
 * relay publishes from there. The dead letter is removed only after the commit: if that removal
 * fails, the message is still replayed, and a second replay is refused with 409 because the message
 * is no longer failed. A dead letter that names another lane than its message's is refused (409)
 * before anything changes: one of the two is wrong, and replaying would publish to a lane nobody chose.
 */
export async function replayOne(
  deps: AdminDeps,
  input: { id: string; actor: string; reason: string | null },
): Promise<Replayed> {
  const { id, actor, reason } = input
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
    const current = await findMessageLaneAndStatus(tx, { tenantId, messageId })
    if (current && current.lane !== queue) {
      throw new AppError(
        'conflict',
        `Dead letter ${id} is from the ${queue} lane, but message ${messageId} belongs to the ${current.lane} lane; not replayed`,
      )
    }
    const outcome = await requeueFailedMessage(tx, { tenantId, messageId, now })
    if (outcome.kind === 'not-found') {
      throw new AppError('not_found', `Message ${messageId} of dead letter ${id} no longer exists`)
    }
    if (outcome.kind === 'body-removed') {
      throw new AppError(
        'conflict',
        `Message ${messageId} cannot be replayed: its body was removed by the retention on ${outcome.removedAt.toISOString()}`,
      )
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
  return { id, messageId, status: 'queued', lane: replayed.lane, generation: replayed.generation }
}
