import type { Lane } from '@fairlane/core'
import {
  type AcceptedSend,
  type LaneJobState,
  type RecordedMessage,
  type RepublishedMessage,
  type StrandedMessage,
  sweepStrandedMessages,
} from '@fairlane/core/recovery'
import type { Database } from '@fairlane/db'
import { createSweepStore } from '@fairlane/db/queries/sweeper'
import {
  BATCH_LANES,
  type BatchLane,
  SEND_BATCH_JOB_NAME,
  sendBatchJobPayload,
  sendJobId,
  sendJobPayload,
} from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { withTimeout } from '../with-timeout'

export interface SweepDeps {
  db: Database
  /** A message's job is looked up in its tenant's shard of its lane (LANE_SHARDS). */
  lanes: {
    queueFor(lane: Lane, tenantId: string): Pick<Queue, 'getJobState' | 'getJob'>
    /**
     * Every shard of a batch lane (bulk, default), to find the messages that wait inside batch jobs
     * (whose ids name only their first message). Without it, only each message's own job is looked for.
     */
    shardsOf?(lane: BatchLane): readonly Pick<Queue, 'getJobs'>[]
  }
  /** A queued message older than this with no live job is published again. */
  queuedForMs: number
  batchSize: number
  /** Each question to Redis gives up after this long, failing the pass (default 2 s). */
  redisTimeoutMs?: number
  logger: Logger
  metrics?: Pick<WorkerMetrics, 'sweeperRepublished' | 'sweeperRecordedAccepted'>
}

export interface SweepResult {
  /** False when another process's sweeper holds the lock this pass. */
  leader: boolean
  examined: number
  republished: number
  /** Accepted sends whose job failed for good, recorded `sent` (never republished). */
  recorded: number
}

const DEFAULT_REDIS_TIMEOUT_MS = 2_000

/**
 * One sweep (`sweepStrandedMessages`) against PostgreSQL and the lanes' queues: each question to Redis
 * gives up after `redisTimeoutMs`, and every message republished or recorded is logged and counted.
 */
export async function sweepOnce(deps: SweepDeps): Promise<SweepResult> {
  const timeoutMs = deps.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS
  const queueOf = (message: StrandedMessage) => deps.lanes.queueFor(message.lane, message.tenantId)
  const batched = new Map<BatchLane, Promise<Map<string, LaneJobState>>>()
  const inBatches = (lane: BatchLane) => {
    let found = batched.get(lane)
    if (!found) {
      found = withTimeout(
        liveBatchedMessages(deps.lanes, lane),
        timeoutMs,
        `the sweeper's ${lane} batch jobs`,
      )
      batched.set(lane, found)
    }
    return found
  }
  const outcome = await sweepStrandedMessages(
    { queuedForMs: deps.queuedForMs, batchSize: deps.batchSize },
    {
      store: createSweepStore(deps.db),
      jobs: {
        jobStateOf: async (message) => {
          const own = await withTimeout(
            queueOf(message).getJobState(sendJobId(message.id, message.generation)),
            timeoutMs,
            `the sweeper's job state of ${message.id}`,
          )
          if (!isBatchLane(message.lane) || LIVE.has(own)) return own
          // A bulk or default message may wait inside a batch job instead: that job is its live job.
          return (await inBatches(message.lane)).get(message.id) ?? own
        },
        acceptedSendOf: async (message) => {
          const job = await withTimeout(
            queueOf(message).getJob(sendJobId(message.id, message.generation)),
            timeoutMs,
            `the sweeper's job of ${message.id}`,
          )
          return acceptedSendIn(job?.data)
        },
      },
    },
  )
  for (const message of outcome.republished) noteRepublished(deps, message)
  for (const message of outcome.recorded) noteRecorded(deps, message)
  return {
    leader: outcome.leader,
    examined: outcome.examined,
    republished: outcome.republished.length,
    recorded: outcome.recorded.length,
  }
}

const LIVE = new Set<string>(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children'])

function isBatchLane(lane: Lane): lane is BatchLane {
  return (BATCH_LANES as readonly Lane[]).includes(lane)
}

/**
 * The messages carried by a lane's live batch jobs, with their job's state; read once per pass and
 * lane, and only when a queued message's own job there is not live. The bulk lane holds at most
 * PACER_HIGH_WATER messages, the default lane at most TRANSACTIONAL_TENANT_SLOTS per tenant, so this
 * is a few dozen jobs. States are read in the order jobs move (delayed → waiting → active), so a job
 * moving on between two reads is still seen in one of them.
 */
async function liveBatchedMessages(
  lanes: SweepDeps['lanes'],
  lane: BatchLane,
): Promise<Map<string, LaneJobState>> {
  const found = new Map<string, LaneJobState>()
  if (!lanes.shardsOf) return found
  for (const queue of lanes.shardsOf(lane)) {
    for (const state of ['delayed', 'prioritized', 'waiting', 'active'] as const) {
      for (const job of await queue.getJobs([state])) {
        if (job?.name !== SEND_BATCH_JOB_NAME) continue
        const payload = sendBatchJobPayload.safeParse(job.data)
        if (!payload.success) continue
        for (const messageId of payload.data.messageIds) found.set(messageId, state)
        // Hand-offs the job could not add yet: its retry adds them, so they are not jobless either.
        for (const handOff of payload.data.handOffs ?? []) found.set(handOff.messageId, state)
      }
    }
  }
  return found
}

/** The accepted send a lane job's data holds (`acceptedLockToken`), if it is a well-formed one. */
function acceptedSendIn(data: unknown): AcceptedSend | null {
  const payload = sendJobPayload.safeParse(data)
  if (!payload.success || !payload.data.acceptedLockToken) return null
  return { lockToken: payload.data.acceptedLockToken, response: payload.data.acceptedResponse }
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

function noteRecorded(deps: SweepDeps, message: RecordedMessage): void {
  deps.metrics?.sweeperRecordedAccepted.inc({ lane: message.lane })
  deps.logger.warn(
    {
      tenantId: message.tenantId,
      messageId: message.id,
      lane: message.lane,
      jobId: sendJobId(message.id, message.generation),
    },
    'sweeper recorded as sent a message the server accepted whose job failed before recording it',
  )
}
