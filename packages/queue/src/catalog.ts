import type { Lane } from '@fairlane/core'
import type { JobsOptions } from 'bullmq'

/**
 * Per-lane job policy, shared by producers (relay, pacer) and workers. Critical mail retries fast
 * and gives up early (a login code that arrives after ten minutes is useless); default mail backs off
 * longer; bulk rides out a provider's bad minute. Jitter spreads retries so a recovering SMTP
 * server is not hit by every failed job in the same instant.
 */
export const LANE_JOB_POLICY = {
  critical: { attempts: 5, backoff: { type: 'exponential', delay: 250, jitter: 0.5 } },
  default: { attempts: 8, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  bulk: { attempts: 10, backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 } },
} as const satisfies Record<Lane, Pick<JobsOptions, 'attempts' | 'backoff'>>

/** The one job name on a lane queue. */
export const SEND_JOB_NAME = 'send'

/**
 * Completed jobs are pruned: PostgreSQL keeps the history, and the queue Redis must hold only what is
 * in flight. Failed jobs stay a week for inspection (the dead-letter queue has its own copy).
 */
export const RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 600, count: 1_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
}

export function laneJobOptions(lane: Lane): JobsOptions {
  return { ...LANE_JOB_POLICY[lane], ...RETENTION }
}

/**
 * The job id of a message's delivery. Stable, so a relay that dies after `addBulk` and before its
 * COMMIT re-adds the same id and BullMQ keeps one job. `generation` counts deliberate re-publishes
 * (admin replay, the sweeper after Redis lost its data) so they are not swallowed by a job that is
 * still retained under the old id. No `:` (BullMQ reserves it).
 */
export function sendJobId(messageId: string, generation = 0): string {
  return generation === 0 ? `m-${messageId}` : `m-${messageId}-g${generation}`
}

const SEND_JOB_ID = /^m-([0-9a-f-]{36})(?:-g(\d+))?$/

/** The inverse of `sendJobId`: which message and generation a lane job delivers. Undefined for other ids. */
export function parseSendJobId(jobId: string): { messageId: string; generation: number } | undefined {
  const match = SEND_JOB_ID.exec(jobId)
  if (!match?.[1]) return undefined
  return { messageId: match[1], generation: match[2] ? Number(match[2]) : 0 }
}

/**
 * The dead letter of a lane job, derived from its id: a `failed` event handled twice (a retried
 * handler, two listeners) adds one dead letter, while a replay (a new generation, so a new lane job
 * id) that fails again gets a dead letter of its own.
 */
export function deadLetterJobId(laneJobId: string): string {
  return `dl-${laneJobId}`
}

/** The one job name in the dead-letter queue. */
export const DEAD_LETTER_JOB_NAME = 'dead-letter'
