import type { DeadLetterAction, DeadLetterActionDeps } from './ports'

/**
 * Forgets a dead letter; its message stays `failed` (and the discard's audit entry keeps a restore
 * from bringing the dead letter back). The dead letter is removed inside the audit entry's
 * transaction, so a failed removal leaves no entry claiming it happened. One whose payload does not
 * parse can be discarded too: the entry then names the dead letter instead of its message.
 */
export async function discardDeadLetter(
  input: DeadLetterAction,
  deps: DeadLetterActionDeps,
): Promise<{ id: string; discarded: true }> {
  const { id, actor, reason } = input
  const deadLetter = await deps.queue.find(id)
  const payload = deadLetter.read.ok ? deadLetter.read.payload : null
  await deps.store.transaction(async (tx) => {
    await tx.audit({
      actor,
      action: 'dlq.discard',
      targetType: payload ? 'message' : 'dead-letter',
      targetId: payload?.messageId ?? id,
      reason,
      details: { dlqJobId: id, queue: payload?.queue ?? null, tenantId: payload?.tenantId ?? null },
    })
    await deadLetter.remove()
  })
  deps.logger.info({ dlqJobId: id, messageId: payload?.messageId, actor }, 'dead letter discarded')
  return { id, discarded: true }
}
