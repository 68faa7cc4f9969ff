import { isAppError } from '@fairlane/core/errors'
import { authorizeAdmin } from '../../auth/admin-access'
import { httpStatusOf, respond } from '../../http/errors'
import { readBulkAction } from './dead-letter-action'
import type { AdminDeps } from './deps'
import { discardOne } from './discard-dead-letter'
import { replayOne } from './replay-dead-letter'

type Outcome =
  | ({ id: string; ok: true; status: 200 } & Record<string, unknown>)
  | { id: string; ok: false; status: number; error: { code: string; message: string } }

/** The answer of both bulk routes, as their client reads it. */
export interface BulkDeadLetterJson {
  results: Outcome[]
  succeeded: number
  failed: number
}

/**
 * `POST /api/admin/dlq/replay` and `POST /api/admin/dlq/discard`, `{ ids, reason }` →
 * `{ results: [{ id, ok, status, … }], succeeded, failed }`. Each id is acted on as its single
 * route would (its own transaction and audit entry), one after another, so one refusal (409 already
 * sent, 404 gone) leaves the others done. 200 whatever the outcomes; the results say which is which.
 */
export function bulkReplayDeadLetters(request: Request, deps: AdminDeps): Promise<Response> {
  return bulk(request, deps, replayOne)
}

export function bulkDiscardDeadLetters(request: Request, deps: AdminDeps): Promise<Response> {
  return bulk(request, deps, discardOne)
}

async function bulk(
  request: Request,
  deps: AdminDeps,
  act: (deps: AdminDeps, input: { id: string; actor: string; reason: string }) => Promise<object>,
): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const { ids, reason } = await readBulkAction(request)
    const results: Outcome[] = []
    for (const id of ids) {
      try {
        results.push({ ...(await act(deps, { id, actor, reason })), id, ok: true, status: 200 })
      } catch (error) {
        // An outage or a bug stops the batch (500, logged); what was done so far is in the audit log.
        if (!isAppError(error)) throw error
        results.push({
          id,
          ok: false,
          status: httpStatusOf(error.code),
          error: { code: error.code, message: error.message },
        })
      }
    }
    const succeeded = results.filter((result) => result.ok).length
    const answer: BulkDeadLetterJson = { results, succeeded, failed: results.length - succeeded }
    return Response.json(answer, { headers: { 'cache-control': 'no-store' } })
  })
}
