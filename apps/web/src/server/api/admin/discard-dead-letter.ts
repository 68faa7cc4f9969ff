import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { findDeadLetterJob, readReason } from './dead-letter-action'
import { readDeadLetter } from './dead-letter-view'
import type { AdminDeps } from './deps'

/** `DELETE /api/admin/dlq/:id` `{ reason? }`: forgets a dead letter (the message stays `failed`). */
export function discardDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const reason = await readReason(request)
    return Response.json(await discardOne(deps, { id, actor, reason }), {
      headers: { 'cache-control': 'no-store' },
    })
  })
}

/**
 * Discards one dead letter. The job is removed inside the audit entry's transaction, so a failed
 * removal leaves no entry claiming it happened.
 */
export async function discardOne(
  deps: AdminDeps,
  input: { id: string; actor: string; reason: string | null },
): Promise<{ id: string; discarded: true }> {
  const { id, actor, reason } = input
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
  return { id, discarded: true }
}
