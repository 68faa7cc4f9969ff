import { LANES } from '@fairlane/core'
import type { DeadLetterActionDeps } from '@fairlane/core/dead-letters'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { createDeadLetterStore } from '@fairlane/db/queries/dead-letters'
import { z } from 'zod'
import { readJsonBody, readOptionalJsonBody } from '../../http/read-json-body'
import { readDeadLetter } from './dead-letter-view'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { type QueueJob, queueCall } from './queue-access'

const reasonField = z.string('must be a string').trim().max(1000, 'must be at most 1000 characters')

const actionBody = z.strictObject({ reason: reasonField.optional() })

/** The optional `{ reason? }` of a replay or discard, recorded in the audit log. */
export async function readReason(request: Request): Promise<string | null> {
  const parsed = actionBody.safeParse(await readOptionalJsonBody(request, MAX_ADMIN_BODY_BYTES))
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data.reason || null
}

/** Most dead letters one bulk call may name; a larger incident is a script's job, page by page. */
export const MAX_BULK_IDS = 500

const bulkBody = z.strictObject({
  ids: z
    .array(z.string('must be a string').min(1, 'must not be empty'), 'must be a list of dead-letter ids')
    .min(1, 'name at least one dead letter')
    .max(MAX_BULK_IDS, `name at most ${MAX_BULK_IDS} dead letters`),
  reason: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'is required: say why, it goes into the audit log' : 'must be a string',
    })
    .trim()
    .min(1, 'must not be empty: say why, it goes into the audit log')
    .max(1000, 'must be at most 1000 characters'),
})

/** `{ ids, reason }` of a bulk replay or discard: a reason is required here (every caller is new). */
export async function readBulkAction(request: Request): Promise<{ ids: string[]; reason: string }> {
  const parsed = bulkBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return { ids: [...new Set(parsed.data.ids)], reason: parsed.data.reason }
}

/**
 * The dead-letter job with this id, or a 404. An id that is a job of a lane instead (an easy mix-up:
 * the list shows both) gets a 404 that says so.
 */
export async function findDeadLetterJob(deps: AdminDeps, id: string): Promise<QueueJob> {
  const queues = deps.queues()
  const job = await queueCall(() => queues['dead-letter'].getJob(id))
  if (job) return job
  // Every shard of every lane: the id alone does not say which tenant (and so which shard) it is.
  const shards = LANES.flatMap((lane) => queues.lanes.shardsOf(lane).map((queue) => ({ lane, queue })))
  const found = await queueCall(() => Promise.all(shards.map(({ queue }) => queue.getJob(id))))
  const lane = shards.find((_, index) => found[index] !== undefined)?.lane
  if (lane) {
    throw new AppError(
      'not_found',
      `${JSON.stringify(id)} is a job of the ${lane} lane, not a dead letter; use the dead letter's id from GET /api/admin/dlq`,
    )
  }
  throw new AppError('not_found', `No dead letter with id ${JSON.stringify(id)}`)
}

/** The dead-letter use cases' ports: the dead-letter queue in Redis, the store in PostgreSQL. */
export function deadLetterActionDeps(deps: AdminDeps): DeadLetterActionDeps {
  return {
    queue: {
      async find(id) {
        const job = await findDeadLetterJob(deps, id)
        return { id, read: readDeadLetter(job), remove: () => job.remove() }
      },
    },
    store: createDeadLetterStore(deps.db),
    clock: deps.clock,
    logger: deps.logger,
  }
}
