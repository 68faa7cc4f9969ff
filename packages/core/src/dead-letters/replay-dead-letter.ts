import type { Lane } from '../domain/lanes'
import { AppError } from '../errors/app-error'
import type { DeadLetterAction, DeadLetterActionDeps, RequeueOutcome } from './ports'

export interface ReplayedDeadLetter {
  id: string
  messageId: string
  status: 'queued'
  lane: Lane
  generation: number
}

/**
 * Puts a dead letter's failed message back on its lane, once. The status change (only while
 * `failed`, so a concurrent second replay changes nothing), the outbox row with the next generation
 * and the audit entry commit together; the relay publishes from there. The dead letter is removed
 * only after the commit: if that removal fails, the message is still replayed, and a second replay
 * is refused (`conflict`) because the message is no longer failed. A dead letter that names another
 * lane than its message's is refused before anything changes: one of the two is wrong, and replaying
 * would publish to a lane nobody chose.
 */
export async function replayDeadLetter(
  input: DeadLetterAction,
  deps: DeadLetterActionDeps,
): Promise<ReplayedDeadLetter> {
  const { id, actor, reason } = input
  const deadLetter = await deps.queue.find(id)
  if (!deadLetter.read.ok) {
    throw new AppError(
      'conflict',
      `Dead letter ${id} cannot be replayed: its payload is unreadable (${deadLetter.read.reason})`,
    )
  }
  const { messageId, tenantId, queue } = deadLetter.read.payload
  const now = deps.clock.now()
  const requeued = await deps.store.transaction(async (tx) => {
    const lane = await tx.findMessageLane({ tenantId, messageId })
    if (lane !== null && lane !== queue) {
      throw new AppError(
        'conflict',
        `Dead letter ${id} is from the ${queue} lane, but message ${messageId} belongs to the ${lane} lane; not replayed`,
      )
    }
    const outcome = requeuedOrRefused(await tx.requeueFailed({ tenantId, messageId, now }), id, messageId)
    await tx.publish({ v: 1, messageId, tenantId, lane: outcome.lane, generation: outcome.generation })
    await tx.audit({
      actor,
      action: 'dlq.replay',
      targetType: 'message',
      targetId: messageId,
      reason,
      details: { dlqJobId: id, queue, tenantId, generation: outcome.generation },
    })
    return outcome
  })
  try {
    await deadLetter.remove()
  } catch (error) {
    deps.logger.warn(
      { err: error, dlqJobId: id, messageId },
      'replayed, but the dead letter could not be removed',
    )
  }
  deps.logger.info({ dlqJobId: id, messageId, tenantId, actor }, 'dead letter replayed')
  return { id, messageId, status: 'queued', lane: requeued.lane, generation: requeued.generation }
}

function requeuedOrRefused(
  outcome: RequeueOutcome,
  id: string,
  messageId: string,
): Extract<RequeueOutcome, { kind: 'requeued' }> {
  switch (outcome.kind) {
    case 'requeued':
      return outcome
    case 'not-found':
      throw new AppError('not_found', `Message ${messageId} of dead letter ${id} no longer exists`)
    case 'body-removed':
      throw new AppError(
        'conflict',
        `Message ${messageId} cannot be replayed: its body was removed by the retention on ${outcome.removedAt.toISOString()}`,
      )
    case 'not-failed':
      throw new AppError(
        'conflict',
        `Message ${messageId} is ${outcome.status}; only failed messages can be replayed`,
      )
  }
}
