import type { Lane } from '@fairlane/core'
import { type RepublishedMessage, sweepStrandedMessages } from '@fairlane/core/recovery'
import type { Database } from '@fairlane/db'
import { createSweepStore } from '@fairlane/db/queries/sweeper'
import { sendJobId } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { withTimeout } from '../with-timeout'

export interface SweepDeps {
  db: Database
  /** A message's job is looked up in its tenant's shard of its lane (LANE_SHARDS). */
  lanes: { queueFor(lane: Lane, tenantId: string): Pick<Queue, 'getJobState'> }
  /** A queued message older than this with no live job is published again. */
  queuedForMs: number
  batchSize: number
  /** Each question to Redis gives up after this long, failing the pass (default 2 s). */
  redisTimeoutMs?: number
  logger: Logger
  metrics?: Pick<WorkerMetrics, 'sweeperRepublished'>
}

export interface SweepResult {
  /** False when another process's sweeper holds the lock this pass. */
  leader: boolean
  examined: number
  republished: number
}

const DEFAULT_REDIS_TIMEOUT_MS = 2_000

/**
 * One sweep (`sweepStrandedMessages`) against PostgreSQL and the lanes' queues: each question to Redis
 * gives up after `redisTimeoutMs`, and every message republished is logged and counted.
 */
export async function sweepOnce(deps: SweepDeps): Promise<SweepResult> {
  const timeoutMs = deps.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS
  const outcome = await sweepStrandedMessages(
    { queuedForMs: deps.queuedForMs, batchSize: deps.batchSize },
    {
      store: createSweepStore(deps.db),
      jobs: {
        jobStateOf: (message) =>
          withTimeout(
            deps.lanes
              .queueFor(message.lane, message.tenantId)
              .getJobState(sendJobId(message.id, message.generation)),
            timeoutMs,
            `the sweeper's job state of ${message.id}`,
          ),
      },
    },
  )
  for (const message of outcome.republished) noteRepublished(deps, message)
  return { leader: outcome.leader, examined: outcome.examined, republished: outcome.republished.length }
}

function noteRepublished(deps: SweepDeps, message: RepublishedMessage): void {
  deps.metrics?.sweeperRepublished.inc({ status: message.status })
  deps.logger.info(
    {
      tenantId: message.tenantId,
      messageId: message.id,
      lane: message.lane,
      // The job the relay adds for the new generation; the lost one was `sendJobId(id, generation)`.
      jobId: sendJobId(message.id, message.generation + 1),
      lostJobId: sendJobId(message.id, message.generation),
      was: message.status,
      jobState: message.jobState,
      generation: message.generation + 1,
    },
    'sweeper republished a message whose job was gone',
  )
}
