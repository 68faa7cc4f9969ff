import { discardDeadLetter as discard } from '@fairlane/core/dead-letters'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { deadLetterActionDeps, readReason } from './dead-letter-action'
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

export function discardOne(
  deps: AdminDeps,
  input: { id: string; actor: string; reason: string | null },
): Promise<{ id: string; discarded: true }> {
  return discard(input, deadLetterActionDeps(deps))
}
