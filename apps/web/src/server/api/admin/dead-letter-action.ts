import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { readOptionalJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { type QueueJob, queueCall } from './queue-access'

const actionBody = z.strictObject({
  reason: z.string('must be a string').trim().max(1000, 'must be at most 1000 characters').optional(),
})

/** The optional `{ reason? }` of a replay or discard, recorded in the audit log. */
export async function readReason(request: Request): Promise<string | null> {
  const parsed = actionBody.safeParse(await readOptionalJsonBody(request, MAX_ADMIN_BODY_BYTES))
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data.reason || null
}

/** The dead-letter job with this id, or a 404. */
export async function findDeadLetterJob(deps: AdminDeps, id: string): Promise<QueueJob> {
  const job = await queueCall(() => deps.queues()['dead-letter'].getJob(id))
  if (!job) throw new AppError('not_found', `No dead letter with id ${JSON.stringify(id)}`)
  return job
}
