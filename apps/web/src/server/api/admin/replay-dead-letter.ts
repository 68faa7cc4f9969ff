import { type ReplayedDeadLetter, replayDeadLetter as replay } from '@fairlane/core/dead-letters'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { deadLetterActionDeps, readReason } from './dead-letter-action'
import type { AdminDeps } from './deps'

/**
 * `POST /api/admin/dlq/:id/replay` `{ reason? }`: puts a failed message back on its lane, once
 * (`replayDeadLetter` in core). The console always sends a reason; a script with the bearer token may
 * leave it out.
 */
export function replayDeadLetter(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const reason = await readReason(request)
    const replayed = await replayOne(deps, { id, actor, reason })
    return Response.json(replayed, { headers: { 'cache-control': 'no-store' } })
  })
}

export function replayOne(
  deps: AdminDeps,
  input: { id: string; actor: string; reason: string | null },
): Promise<ReplayedDeadLetter> {
  return replay(input, deadLetterActionDeps(deps))
}
