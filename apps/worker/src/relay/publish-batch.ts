import { type Lane, MESSAGE_PUBLISH_TOPIC, messagePublishEvent } from '@fairlane/core'
import type { Database, Transaction } from '@fairlane/db'
import {
  claimUnpublishedOutbox,
  countOutboxAttempt,
  markOutboxPublished,
  type OutboxEntry,
} from '@fairlane/db/queries/outbox'
import { laneJobOptions, SEND_JOB_NAME, type SendJobPayload, sendJobId } from '@fairlane/queue'
import type { JobsOptions, Queue } from 'bullmq'
import type { Logger } from 'pino'

/** Test seams; production wiring passes none. */
export interface RelayHooks {
  /** Runs after the jobs were added and before the rows are marked published (and committed). */
  afterAddBulk?: (published: number) => Promise<void> | void
}

export interface PublishDeps {
  db: Database
  queues: Record<Lane, Pick<Queue, 'addBulk'>>
  batchSize: number
  /** A Redis call that never settles (the server vanished mid-call) must not hold the row locks forever. */
  addTimeoutMs: number
  /** Rows this relay could not parse; left out of its claims so they cannot fill every batch. */
  skipIds: Set<number>
  logger: Logger
  hooks?: RelayHooks
}

export interface BatchResult {
  claimed: number
  published: number
  rejected: number
}

interface LaneJob {
  name: string
  data: SendJobPayload
  opts: JobsOptions
}

/** Beyond this many unparseable rows the skip list starts over, so memory stays bounded. */
const MAX_SKIPPED = 10_000

/**
 * One relay pass. Rows are claimed, turned into jobs, added, and marked published in one
 * transaction: if anything fails the rows stay unpublished and the next pass adds them again. The
 * job ids derive from (message id, generation), so dying after `addBulk` and before COMMIT
 * republishes the same ids and BullMQ keeps one job each; if that job already finished and was
 * pruned, the new one finds the message sent and skips it.
 */
export async function publishOutboxBatch(deps: PublishDeps): Promise<BatchResult> {
  let claimedIds: number[] = []
  try {
    return await deps.db.transaction(async (tx) => {
      const rows = await claimUnpublishedOutbox(tx, {
        topics: [MESSAGE_PUBLISH_TOPIC],
        limit: deps.batchSize,
        skipIds: [...deps.skipIds],
      })
      claimedIds = rows.map((row) => row.id)
      const plan = planJobs(rows)
      if (plan.rejected.length > 0) await rejectRows(tx, plan.rejected, deps)
      await addJobs(deps, plan.jobs)
      await deps.hooks?.afterAddBulk?.(plan.publishIds.length)
      await markOutboxPublished(tx, plan.publishIds)
      logPublished(deps.logger, plan.jobs)
      return { claimed: rows.length, published: plan.publishIds.length, rejected: plan.rejected.length }
    })
  } catch (error) {
    // Outside the rolled-back transaction, so the count survives; the rows themselves are untouched.
    await countOutboxAttempt(deps.db, claimedIds).catch(() => {})
    throw error
  }
}

function planJobs(rows: OutboxEntry[]) {
  const jobs = new Map<Lane, LaneJob[]>()
  const publishIds: number[] = []
  const rejected: { row: OutboxEntry; reason: string }[] = []
  for (const row of rows) {
    const parsed = messagePublishEvent.safeParse(row.payload)
    if (!parsed.success) {
      rejected.push({ row, reason: parsed.error.issues.map((issue) => issue.message).join('; ') })
      continue
    }
    const { lane, messageId, tenantId, generation } = parsed.data
    const job: LaneJob = {
      name: SEND_JOB_NAME,
      data: { v: 1, messageId, tenantId },
      opts: { ...laneJobOptions(lane), jobId: sendJobId(messageId, generation) },
    }
    jobs.set(lane, [...(jobs.get(lane) ?? []), job])
    publishIds.push(row.id)
  }
  return { jobs, publishIds, rejected }
}

async function rejectRows(
  tx: Transaction,
  rejected: { row: OutboxEntry; reason: string }[],
  deps: PublishDeps,
): Promise<void> {
  await countOutboxAttempt(
    tx,
    rejected.map(({ row }) => row.id),
  )
  if (deps.skipIds.size + rejected.length > MAX_SKIPPED) deps.skipIds.clear()
  for (const { row, reason } of rejected) {
    deps.skipIds.add(row.id)
    const messageId = typeof row.payload.messageId === 'string' ? row.payload.messageId : undefined
    deps.logger.error(
      {
        outboxId: row.id,
        topic: row.topic,
        tenantId: row.tenantId,
        messageId,
        attempts: row.attempts + 1,
        reason,
      },
      'outbox row has an unparseable payload; left for a relay that understands it',
    )
  }
}

/** One debug line per job (off at the default level), so a message can be traced through the relay. */
function logPublished(logger: Logger, jobs: Map<Lane, LaneJob[]>): void {
  if (!logger.isLevelEnabled('debug')) return
  for (const [lane, laneJobs] of jobs) {
    for (const job of laneJobs) {
      logger.debug(
        { tenantId: job.data.tenantId, messageId: job.data.messageId, lane, jobId: job.opts.jobId },
        'outbox row published as a lane job',
      )
    }
  }
}

async function addJobs(deps: PublishDeps, jobs: Map<Lane, LaneJob[]>): Promise<void> {
  const adds = Promise.all([...jobs].map(([lane, laneJobs]) => deps.queues[lane].addBulk(laneJobs)))
  // After a timeout nobody awaits the adds any more; their late rejection must not go unhandled.
  adds.catch(() => {})
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`addBulk did not finish within ${deps.addTimeoutMs} ms`)),
      deps.addTimeoutMs,
    )
  })
  try {
    await Promise.race([adds, timeout])
  } finally {
    clearTimeout(timer)
  }
}
