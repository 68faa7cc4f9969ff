import type { Lane } from '@fairlane/core'
import { deliveryErrorCodeOf, withRetries } from '@fairlane/core/delivery'
import type { Database } from '@fairlane/db'
import { failAfterFinalAttempt } from '@fairlane/db/queries/delivery'
import {
  batchHandOffJob,
  batchTenantOf,
  batchTenants,
  type DeadLetterPayload,
  deadLetterJob,
  parseSendJobId,
  SEND_BATCH_JOB_NAME,
  type SendLaneJob,
  sendBatchJobPayload,
  sendJob,
  sendJobId,
  sendJobPayload,
} from '@fairlane/queue'
import { type Job, type Queue, UnrecoverableError } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { redactAddresses } from './redact'
import type { BatchDeadLetter } from './send-processor'

export interface DeadLetterDeps {
  db: Database
  queue: Pick<Queue, 'add'>
  logger: Logger
  metrics: Pick<WorkerMetrics, 'jobsFailed' | 'deadLettered'>
  /**
   * A batch job that failed for good hands each of its unfinished messages to its own job, as if
   * handed off one by one. Without it, they are left to the sweeper (once their claims expire).
   */
  batches?: BatchFailureDeps
}

export interface BatchFailureDeps {
  /** Which of the messages still wait (`queued` or `sending`), with their generation. */
  unfinished(input: {
    tenantIds: readonly string[]
    messageIds: readonly string[]
  }): Promise<Array<{ messageId: string; tenantId: string; generation: number }>>
  /** Adds the messages' own jobs to their lane (their tenant's shard). */
  handOff(lane: Lane, jobs: readonly SendLaneJob[]): Promise<void>
}

export interface DeadLetters {
  /** The lane worker's `failed` listener. */
  onFailed(lane: Lane, job: Job | undefined, error: Error): void
  /**
   * One message of a batch job that failed for good (the send already marked it failed): its own
   * dead letter, under the id its own job would have (`sendJobId` of its message and generation), so
   * the admin console's dead letters stay one per message and a replay works as for any other.
   */
  onMessageFailed(input: BatchDeadLetter): Promise<void>
  /** Waits for dead letters still being written (shutdown, after the workers closed). */
  drain(): Promise<void>
}

/**
 * A failure is final when BullMQ will not retry it: out of attempts, or `UnrecoverableError`, which
 * fails at attempt 1 so `attemptsMade >= attempts` alone would let it vanish. The name is compared
 * too, in case the error crossed a realm (sandboxed processor) where instanceof fails.
 */
export function isFinalFailure(job: Job, error: Error): boolean {
  if (error instanceof UnrecoverableError || error.name === 'UnrecoverableError') return true
  return job.attemptsMade >= (job.opts.attempts ?? 1)
}

export function createDeadLetters(deps: DeadLetterDeps): DeadLetters {
  const pending = new Set<Promise<void>>()
  return {
    onFailed(lane, job, error) {
      deps.metrics.jobsFailed.inc({ lane })
      if (!job || !isFinalFailure(job, error)) return
      const task: Promise<void> = deadLetter(deps, lane, job, error)
        .catch((failure: unknown) => {
          const ids = sendJobPayload.safeParse(job.data)
          deps.logger.error(
            {
              tenantId: ids.success ? ids.data.tenantId : undefined,
              messageId: ids.success ? ids.data.messageId : undefined,
              lane,
              jobId: job.id,
              err: (failure as Error).message,
            },
            'could not record a dead letter; the message row still reads failed or will be swept',
          )
        })
        .finally(() => pending.delete(task))
      pending.add(task)
    },
    onMessageFailed(input) {
      deps.metrics.jobsFailed.inc({ lane: input.lane })
      const task: Promise<void> = messageDeadLetter(deps, input)
        .catch((failure: unknown) => {
          deps.logger.error(
            {
              tenantId: input.tenantId,
              messageId: input.messageId,
              lane: input.lane,
              err: (failure as Error).message,
            },
            'could not record a dead letter; the message row reads failed',
          )
        })
        .finally(() => pending.delete(task))
      pending.add(task)
      return task
    },
    async drain() {
      await Promise.all([...pending])
    },
  }
}

/**
 * Makes the row read `failed` (unless another attempt or a re-publish owns the message by now), then
 * adds the dead letter under an id derived from the lane job's, so a repeated event adds nothing.
 */
async function deadLetter(deps: DeadLetterDeps, lane: Lane, job: Job, error: Error): Promise<void> {
  if (job.name === SEND_BATCH_JOB_NAME) return handOutFailedBatch(deps, lane, job, error)
  const payload = sendJobPayload.safeParse(job.data)
  const ids = job.id ? parseSendJobId(job.id) : undefined
  const reason = redactAddresses(error.message)
  if (!payload.success || !job.id || !ids) {
    deps.logger.error(
      { lane, jobId: job.id, err: reason },
      'a malformed lane job failed; nothing to dead-letter',
    )
    return
  }
  const { messageId, tenantId, acceptedLockToken } = payload.data
  const log = deps.logger.child({ tenantId, messageId, lane, jobId: job.id })
  if (acceptedLockToken) {
    // The server accepted this message; only recording it failed. It is not failed mail: the row
    // stays `sending`, never marked failed or replayed, and once its claim expires the sweeper finds
    // this failed job's accepted claim and records the message `sent` (never republishes it).
    log.error(
      { err: reason },
      'a job holding an accepted send failed; not dead-lettered, the sweeper records it',
    )
    return
  }
  const row = await failAfterFinalAttempt(deps.db, {
    messageId,
    tenantId,
    generation: ids.generation,
    error: error.message,
    errorCode: deliveryErrorCodeOf(error),
  })
  if (row?.status !== 'failed' || row.generation !== ids.generation) {
    log.info(
      { status: row?.status, generation: row?.generation },
      'final job failure superseded; no dead letter',
    )
    return
  }
  const data: DeadLetterPayload = {
    v: 1,
    queue: lane,
    jobId: job.id,
    messageId,
    tenantId,
    error: reason,
    attempts: job.attemptsMade,
    failedAt: new Date(job.finishedOn ?? Date.now()).toISOString(),
  }
  const entry = deadLetterJob(data)
  await withRetries(() => deps.queue.add(entry.name, entry.data, entry.opts), [200, 1_000])
  deps.metrics.deadLettered.inc({ lane })
  log.error({ attempts: data.attempts, err: reason, deadLetterId: entry.opts.jobId }, 'job dead-lettered')
}

/** A batch's message, already marked failed by its send: only the dead letter is left to add. */
async function messageDeadLetter(deps: DeadLetterDeps, input: BatchDeadLetter): Promise<void> {
  const jobId = sendJobId(input.messageId, input.generation)
  const reason = redactAddresses(input.error.message)
  const data: DeadLetterPayload = {
    v: 1,
    queue: input.lane,
    jobId,
    messageId: input.messageId,
    tenantId: input.tenantId,
    error: reason,
    attempts: input.attempts,
    failedAt: new Date().toISOString(),
  }
  const entry = deadLetterJob(data)
  await withRetries(() => deps.queue.add(entry.name, entry.data, entry.opts), [200, 1_000])
  deps.metrics.deadLettered.inc({ lane: input.lane })
  deps.logger.error(
    {
      tenantId: input.tenantId,
      messageId: input.messageId,
      lane: input.lane,
      jobId,
      attempts: data.attempts,
      err: reason,
      deadLetterId: entry.opts.jobId,
    },
    'message of a batch dead-lettered',
  )
}

/**
 * A batch job failed for good (its claim, its token take or its hand-offs kept failing): its messages'
 * own failures were settled one by one, and what it still carries goes on message by message. The
 * hand-offs it could not add are added as they were (an accepted one only records), and every message
 * it had yet to send that still waits gets its own job, with its own attempts, backoff and dead letter.
 * None is marked failed for its batch's trouble. If even that cannot be written, the sweeper finds the
 * rows jobless once their claims expire.
 */
async function handOutFailedBatch(deps: DeadLetterDeps, lane: Lane, job: Job, error: Error): Promise<void> {
  const payload = sendBatchJobPayload.safeParse(job.data)
  const log = deps.logger.child({ lane, jobId: job.id, err: redactAddresses(error.message) })
  if (!payload.success) {
    log.error('a malformed batch job failed; nothing to hand on')
    return
  }
  const { tenantId, messageIds, handOffs = [] } = payload.data
  if (!deps.batches) {
    log.error({ tenantId }, 'a batch job failed for good; its messages are left to the sweeper')
    return
  }
  const { batches } = deps
  const tenantIds = batchTenants(payload.data)
  const unfinished = await withRetries(() => batches.unfinished({ tenantIds, messageIds }), [200, 1_000])
  const jobs = [
    ...handOffs.map((handOff) =>
      batchHandOffJob({ lane, tenantId: batchTenantOf(payload.data, handOff.messageId), handOff }),
    ),
    ...unfinished.map((message) => sendJob({ lane, ...message })),
  ]
  if (jobs.length > 0) await withRetries(() => batches.handOff(lane, jobs), [200, 1_000])
  log.error(
    { tenantId, handedOff: handOffs.length, ownJobs: unfinished.length },
    'a batch job failed for good; each unfinished message goes on as its own job',
  )
}
