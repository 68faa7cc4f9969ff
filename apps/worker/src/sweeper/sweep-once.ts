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

export interface SweepDeps {
  db: Database
  queues: Record<Lane, Pick<Queue, 'getJobState'>>
  /** A queued message older than this with no live job is published again. */
  queuedForMs: number
  batchSize: number
  logger: Logger
  metrics?: Pick<WorkerMetrics, 'sweeperRepublished'>
}

export interface SweepResult {
  /** False when another process's sweeper holds the lock this pass. */
  leader: boolean
  examined: number
  republished: number
}

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
 * stalled out) is published again under a new generation. One sweeper runs at a time across
 * processes (a transaction-level advisory lock); the rows stay locked while Redis is asked, so a
 * claim or a replay racing with this pass waits for its decision. If Redis cannot answer, the pass
 * fails and republishes nothing: not knowing is no reason to duplicate.
 */
export async function sweepOnce(deps: SweepDeps): Promise<SweepResult> {
  return deps.db.transaction(async (tx) => {
    if (!(await tryTakeSweeperLock(tx))) return { leader: false, examined: 0, republished: 0 }
    const stranded = await findStrandedMessages(tx, { queuedForMs: deps.queuedForMs, limit: deps.batchSize })
    const states = await Promise.all(stranded.map((message) => jobStateOf(deps, message)))
    let republished = 0
    for (const [index, message] of stranded.entries()) {
      const state = states[index] ?? 'unknown'
      if (LIVE_STATES.has(state)) continue
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
          jobState: state,
          generation: message.generation + 1,
        },
        'sweeper republished a message whose job was gone',
      )
    }
    if (republished > 0) await notifyOutbox(tx)
    return { leader: true, examined: stranded.length, republished }
  })
}

function jobStateOf(deps: SweepDeps, message: StrandedMessage): Promise<JobState | 'unknown'> {
  return deps.queues[message.lane].getJobState(sendJobId(message.id, message.generation))
}
