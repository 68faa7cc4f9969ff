import type { Lane } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { notifyOutbox } from '@fairlane/db/queries/outbox'
import {
  findStrandedMessages,
  republishMessage,
  type StrandedMessage,
  tryTakeSweeperLock,
} from '@fairlane/db/queries/sweeper'
import { sendJobId } from '@fairlane/queue'
import type { JobState, Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { withTimeout } from '../with-timeout'

export interface SweepDeps {
  db: Database
  queues: Record<Lane, Pick<Queue, 'getJobState'>>
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

/** A job in one of these states will still run; anything else ('completed', 'failed', 'unknown') will not. */
const LIVE_STATES = new Set<JobState | 'unknown'>([
  'active',
  'waiting',
  'delayed',
  'prioritized',
  'waiting-children',
])

/**
 * PostgreSQL is the truth and Redis only holds what is in flight, so a message that should be moving
 * but has no live job (Redis restarted without its data, an addBulk lost with its relay, a job that
 * stalled out) is published again under a new generation.
 *
 * Three steps, so that no PostgreSQL transaction is ever open while Redis is asked (a Redis outage
 * would otherwise hold row locks and a pooled connection for as long as it lasts):
 *  1. read the candidates, no locks;
 *  2. ask Redis for each one's job, every call bounded by `redisTimeoutMs`; if Redis cannot answer,
 *     the pass fails and republishes nothing: not knowing is no reason to duplicate;
 *  3. one short transaction: the sweeper's advisory lock (one pass decides at a time across
 *     processes), the rows whose job is gone re-read FOR UPDATE, and only those still stranded at
 *     the same generation and status are republished. A job found gone cannot come back under the
 *     same job id without PostgreSQL changing first (a claim moves the row to a fresh `sending`, the
 *     relay only publishes new outbox rows), so the re-read is what makes the answer still true.
 */
export async function sweepOnce(deps: SweepDeps): Promise<SweepResult> {
  const candidates = await findStrandedMessages(deps.db, {
    queuedForMs: deps.queuedForMs,
    limit: deps.batchSize,
  })
  if (candidates.length === 0) return { leader: true, examined: 0, republished: 0 }
  const timeoutMs = deps.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS
  const states = await Promise.all(
    candidates.map((message) =>
      withTimeout(jobStateOf(deps, message), timeoutMs, `the sweeper's job state of ${message.id}`),
    ),
  )
  const gone = new Map<string, { message: StrandedMessage; state: JobState | 'unknown' }>()
  for (const [index, message] of candidates.entries()) {
    const state = states[index] ?? 'unknown'
    if (!LIVE_STATES.has(state)) gone.set(message.id, { message, state })
  }
  if (gone.size === 0) return { leader: true, examined: candidates.length, republished: 0 }

  return deps.db.transaction(async (tx) => {
    if (!(await tryTakeSweeperLock(tx))) return { leader: false, examined: 0, republished: 0 }
    const still = await findStrandedMessages(tx, {
      queuedForMs: deps.queuedForMs,
      limit: gone.size,
      ids: [...gone.keys()],
      forUpdate: true,
    })
    let republished = 0
    for (const message of still) {
      const seen = gone.get(message.id)
      if (!seen) continue
      if (seen.message.generation !== message.generation || seen.message.status !== message.status) continue
      if (!(await republishMessage(tx, { ...message, messageId: message.id }))) continue
      republished += 1
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
          jobState: seen.state,
          generation: message.generation + 1,
        },
        'sweeper republished a message whose job was gone',
      )
    }
    if (republished > 0) await notifyOutbox(tx)
    return { leader: true, examined: candidates.length, republished }
  })
}

function jobStateOf(deps: SweepDeps, message: StrandedMessage): Promise<JobState | 'unknown'> {
  return deps.queues[message.lane].getJobState(sendJobId(message.id, message.generation))
}
