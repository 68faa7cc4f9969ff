import { isLane, type Lane } from '@fairlane/core'
import type { JobsOptions } from 'bullmq'
import type {
  BatchHandOff,
  BatchLane,
  DeadLetterPayload,
  SendBatchJobPayload,
  SendJobPayload,
} from './payloads'

/**
 * Per-lane retry policy: exponential backoff from `baseMs`, doubling per failed attempt up to `capMs`,
 * each delay drawn from its upper half (jitter, so a recovering SMTP server is not hit by every
 * failed job in the same instant). Critical mail retries fast and often enough to ride out a
 * provider's bad minute (`421`/`451` for 60 s: about two minutes of retries); default and bulk back
 * off further and for longer. Permanent failures never retry (`UnrecoverableError`).
 */
export const LANE_RETRY_POLICY = {
  /** 0.25, 0.5, 1, 2, 4, then every 5 s: up to about 2 minutes in all. */
  critical: { attempts: 30, baseMs: 250, capMs: 5_000 },
  /** 1 s doubling to a minute: up to about 10 minutes in all. */
  default: { attempts: 15, baseMs: 1_000, capMs: 60_000 },
  /** 2 s doubling to five minutes: up to about 45 minutes in all. */
  bulk: { attempts: 15, baseMs: 2_000, capMs: 300_000 },
} as const satisfies Record<Lane, { attempts: number; baseMs: number; capMs: number }>

/** The backoff type lane jobs carry; the lane workers' `backoffStrategy` computes it. */
export const LANE_BACKOFF_TYPE = 'lane-capped-exponential'

/** The delay before retry number `attemptsMade` (1 after the first failure) of a lane job. */
export function laneRetryDelayMs(
  lane: Lane,
  attemptsMade: number,
  random: () => number = Math.random,
): number {
  const { baseMs, capMs } = LANE_RETRY_POLICY[lane]
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attemptsMade - 1))
  return Math.floor(ceiling * (0.5 + 0.5 * random()))
}

/** The longest a lane job can spend waiting between its attempts, all retries together. */
export function laneRetryBudgetMs(lane: Lane): number {
  let total = 0
  for (let attempt = 1; attempt < LANE_RETRY_POLICY[lane].attempts; attempt++) {
    total += laneRetryDelayMs(lane, attempt, () => 1)
  }
  return total
}

/**
 * For a lane Worker's `settings.backoffStrategy`: the lane comes from the job's queue name. Any
 * other backoff type is a programming error and fails loudly rather than retrying at once.
 */
export function laneBackoffStrategy(
  attemptsMade: number,
  type?: string,
  _error?: Error,
  job?: { queueName: string },
): number {
  const lane = job?.queueName
  if (type !== LANE_BACKOFF_TYPE || lane === undefined || !isLane(lane)) {
    throw new Error(`unknown backoff ${JSON.stringify(type)} for a job on ${JSON.stringify(lane)}`)
  }
  return laneRetryDelayMs(lane, attemptsMade)
}

/** Per-lane job options shared by producers (relay, pacer, sweeper, replay) and workers. */
export const LANE_JOB_POLICY = {
  critical: laneAttempts('critical'),
  default: laneAttempts('default'),
  bulk: laneAttempts('bulk'),
} satisfies Record<Lane, Pick<JobsOptions, 'attempts' | 'backoff'>>

function laneAttempts(lane: Lane) {
  const { attempts, baseMs } = LANE_RETRY_POLICY[lane]
  return { attempts, backoff: { type: LANE_BACKOFF_TYPE, delay: baseMs } }
}

/** The one job name on a lane queue. */
export const SEND_JOB_NAME = 'send'

/**
 * Completed jobs are deleted as they complete: PostgreSQL keeps the history (the row's status and its
 * events), and the queue Redis holds only what is in flight. Keeping the last ones (`{ age, count }`)
 * cost six Redis commands per mail (the completed set, its finish fields and its trimming: 39 → 33
 * per bare job, measured on BullMQ 6.7), a sixth of a mail's commands, for a list nobody reads; so the
 * admin console's `completed` count of a lane reads 0. Nothing relies on a completed job for
 * de-duplication: a send job added again after its first completed finds its message sent and skips.
 * Failed jobs carry no retention of their own: the lane workers' `removeOnFail` (FAILED_JOBS_MAX_COUNT,
 * FAILED_JOBS_MAX_AGE_HOURS) applies, so a flood of permanently failing mail cannot fill a
 * `noeviction` Redis (the `failed` rows and the dead letters are the record).
 */
export const RETENTION: Pick<JobsOptions, 'removeOnComplete'> = {
  removeOnComplete: true,
}

/** BullMQ's `removeOnFail` for a lane worker: the newest `maxCount` failed jobs, none older than `maxAgeHours`. */
export function failedJobRetention(caps: { maxCount: number; maxAgeHours: number }): {
  age: number
  count: number
} {
  return { age: caps.maxAgeHours * 3600, count: caps.maxCount }
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
 * The priority of the pacer's jobs for old flows (tenants past their first turn) in the bulk lane.
 * BullMQ takes a job from its wait list before any from its prioritized set, first in first out in
 * each: so a new flow's first turn, added without a priority (`fresh`), is the next job a bulk worker
 * takes, however many old-flow jobs wait, and new flows keep their order among themselves (fq_codel's
 * two lists; a LIFO add instead buried each tick's newcomers under the next tick's). Other jobs added
 * to the lane without a priority (a batch's hand-offs, the sweeper's republish, an admin's replay)
 * are few and are served with the new flows.
 */
export const OLD_FLOWS_PRIORITY = 1

/** A message's delivery as its producers add it to its lane (`add` or `addBulk`). */
export interface SendLaneJob {
  name: typeof SEND_JOB_NAME
  data: SendJobPayload
  opts: JobsOptions & { jobId: string }
}

/**
 * The lane job that delivers a message, the same whoever publishes it (the relay from the outbox, the
 * pacer from the bulk backlog): the lane's one job name, a payload of ids only, the lane's retries
 * and retention, and the message's stable job id, so a publish repeated after a crash adds nothing.
 */
export function sendJob(input: {
  lane: Lane
  messageId: string
  tenantId: string
  /** The message's publish generation (see `sendJobId`). */
  generation: number
  /** Bulk, from the pacer: a new flow's first turn (true) or an old flow's (false); see `OLD_FLOWS_PRIORITY`. */
  fresh?: boolean
}): SendLaneJob {
  return {
    name: SEND_JOB_NAME,
    data: {
      v: 1,
      messageId: input.messageId,
      tenantId: input.tenantId,
      ...(input.fresh === true ? { fresh: true } : {}),
    },
    opts: {
      ...laneJobOptions(input.lane),
      ...flowPriority(input.fresh),
      jobId: sendJobId(input.messageId, input.generation),
    },
  }
}

/** An old flow's job waits in the prioritized set; a new flow's (and any other) in the wait list. */
function flowPriority(fresh: boolean | undefined): { priority?: number } {
  return fresh === false ? { priority: OLD_FLOWS_PRIORITY } : {}
}

/**
 * The own job of a message a batch hands on (`BatchHandOff`): its `sendJob`, delayed as the hand-off
 * asked, carrying the accepted claim when the server had it (that job only records it).
 */
export function batchHandOffJob(input: { lane: Lane; tenantId: string; handOff: BatchHandOff }): SendLaneJob {
  const { handOff } = input
  const single = sendJob({
    lane: input.lane,
    messageId: handOff.messageId,
    tenantId: input.tenantId,
    generation: handOff.generation,
  })
  const data: SendJobPayload = {
    ...single.data,
    ...(handOff.acceptedLockToken === undefined ? {} : { acceptedLockToken: handOff.acceptedLockToken }),
    ...(handOff.acceptedResponse === undefined ? {} : { acceptedResponse: handOff.acceptedResponse }),
  }
  return { ...single, data, opts: { ...single.opts, delay: handOff.delayMs } }
}

/** The job name of a job carrying a batch of one tenant's messages (`sendBatchJob`). */
export const SEND_BATCH_JOB_NAME = 'send-batch'

/**
 * A batch job's id: its first message's id and generation, under a prefix of its own (`b-`), so it
 * never collides with that message's own single-message job (`m-`), which a message handed out of
 * the batch (a transient failure, an unknown outcome) goes on with. Stable, so a release repeated
 * after a crash adds nothing; BullMQ also ignores the add while a job of that id is still running,
 * which is harmless: that job carries the same first message.
 */
export function sendBatchJobId(firstMessageId: string, generation = 0): string {
  return generation === 0 ? `b-${firstMessageId}` : `b-${firstMessageId}-g${generation}`
}

/** A batch job as the pacer or the relay adds it (`addBulk`). */
export interface SendBatchLaneJob {
  name: typeof SEND_BATCH_JOB_NAME
  data: SendBatchJobPayload
  opts: JobsOptions & { jobId: string }
}

/**
 * The job that delivers up to BULK_BATCH_SIZE (bulk) or TX_BATCH_SIZE (default) messages of one
 * tenant: the lane's retries and retention, ids only, and an id from its first message
 * (`sendBatchJobId`). On the default lane each message keeps the lane slot the relay admitted it
 * under, its own job's id (`sendJobId`), named in `laneSlots` so the batch gives them back.
 */
export function sendBatchJob(input: {
  /** Default: bulk. */
  lane?: BatchLane
  tenantId: string
  /**
   * A message's own `tenantId` (bulk only): a batch of several tenants' turns, which names each
   * message's tenant (`tenantOf`, payload version 2); absent, the batch's.
   */
  messages: ReadonlyArray<{ messageId: string; generation: number; tenantId?: string }>
  /** As `sendJob`'s: bulk, from the pacer, a new flow's first turn (true) or an old flow's (false). */
  fresh?: boolean
}): SendBatchLaneJob {
  const first = input.messages[0]
  if (!first) throw new Error('a batch job needs at least one message')
  const lane = input.lane ?? 'bulk'
  const mixed = input.messages.some((message) => (message.tenantId ?? input.tenantId) !== input.tenantId)
  if (mixed && lane !== 'bulk') throw new Error('only a bulk batch may carry several tenants’ messages')
  return {
    name: SEND_BATCH_JOB_NAME,
    data: {
      v: mixed ? 2 : 1,
      tenantId: input.tenantId,
      ...(mixed
        ? {
            tenantOf: Object.fromEntries(
              input.messages.map((message) => [message.messageId, message.tenantId ?? input.tenantId]),
            ),
          }
        : {}),
      lane,
      messageIds: input.messages.map((message) => message.messageId),
      ...(lane === 'bulk'
        ? {}
        : { laneSlots: input.messages.map((message) => sendJobId(message.messageId, message.generation)) }),
      ...(input.fresh === true ? { fresh: true } : {}),
    },
    opts: {
      ...laneJobOptions(lane),
      ...flowPriority(input.fresh),
      jobId: sendBatchJobId(first.messageId, first.generation),
    },
  }
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

/**
 * A dead letter as added to the dead-letter queue (`add` or `addBulk`): its one name, and an id
 * derived from the lane job it records, so adding it again — a repeated `failed` event, a restore from
 * PostgreSQL — adds nothing. Its timestamp is the failure's, not the add's: the age cap
 * (DEAD_LETTER_MAX_AGE_DAYS) then trims a restored dead letter when its failure is that old, not that
 * long after a restore re-added it.
 */
export function deadLetterJob(data: DeadLetterPayload): {
  name: string
  data: DeadLetterPayload
  opts: { jobId: string; timestamp?: number }
} {
  const failedAtMs = Date.parse(data.failedAt)
  return {
    name: DEAD_LETTER_JOB_NAME,
    data,
    opts: {
      jobId: deadLetterJobId(data.jobId),
      ...(Number.isFinite(failedAtMs) ? { timestamp: failedAtMs } : {}),
    },
  }
}
