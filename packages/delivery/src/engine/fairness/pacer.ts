import {
  type ActiveSetSync,
  type BulkLane,
  createActiveSetSync,
  type LeavingTenant,
  type ReleasedBatch,
  type ReleasedMessage,
  type ReleaseQuota,
  releaseActiveBulk,
  releaseByReceiver,
} from '@fairlane/core/pacing'
import type { Database } from '@fairlane/db'
import { leaveActiveIfEmpty, readActiveTenants } from '@fairlane/db/queries/bulk-backlog-tenants'
import { claimBulkRelease, returnBulkRelease } from '@fairlane/db/queries/pacer'
import { type ActiveFlows, createActiveFlows } from '@fairlane/fairness'
import { sendBatchJob, sendJob } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import type { DeliverySignals } from '../signals'
import { createWakeSignal } from '../wake-signal'
import { withTimeout } from '../with-timeout'
import type { DepthTarget } from './depth-target'
import { createPacerLeadership, type PacerLeadershipOptions } from './pacer-leadership'
import { checkLeaseTiming, PACER_LEASE } from './pacer-lease'
import type { ReceiverPacing } from './receiver-pacing'

export const PACER_TUNING = {
  /** Between ticks while there is backlog: how quickly freed queue slots are refilled. */
  tickMs: 100,
  /** Between ticks with nothing pending (a dispatch in this process also wakes the pacer at once). */
  idleTickMs: 250,
  /** How often a follower asks whether the leader's lease is gone (a handover takes up to this long). */
  followerRetryMs: 1_000,
  /**
   * How often the leader reads the whole active set rather than its changes: plan changes of
   * tenants that stay active reach it this late at most (their buckets hold them to the new plan
   * meanwhile). A read of 10,000 tenants is one slow tick in hundreds.
   */
  rereadActiveEveryMs: 30_000,
}

/** The leader's memory between ticks (relay mode): the active set's flows and where its reads stand. */
export interface PacerMemory {
  flows: ActiveFlows
  sync: ActiveSetSync
}

export function createPacerMemory(horizonMs: number, quantum = 1): PacerMemory {
  return { flows: createActiveFlows({ horizonMs, quantum }), sync: createActiveSetSync() }
}

export interface PacerOptions {
  db: Database
  /** The leadership lease (`pacer-lease.ts`): holder id and timing; defaults to `PACER_LEASE`. */
  lease?: Pick<PacerLeadershipOptions, 'holder' | 'ttlMs' | 'marginMs' | 'standbyMs'>
  /**
   * The bulk lane's queues (`LaneQueues`): each job goes to its tenant's shard, and the depth the
   * pacer fills to is the lane's total over every shard (LANE_SHARDS).
   */
  bulkLane: BulkLaneQueues
  /**
   * Messages the bulk lane may hold at most over all its shards (in its waiting, active, delayed and
   * prioritized jobs; a batch job counts the messages it carries).
   */
  highWater: number
  /**
   * BULK_BATCH_SIZE: relay mode releases each tenant's rows in jobs of up to this many messages
   * (default 1: one job per message); MX mode in jobs of up to this many per tenant and receiving
   * provider, the provider's budget asked once per job.
   */
  batchSize?: number
  /**
   * How many bulk batches can run at once (the fewer of the lane's worker slots and its SMTP
   * connections): relay mode makes batches no larger than the fill target over them, so every one has
   * a batch (`slotBatchSize`).
   */
  workerSlots?: number
  /**
   * The depth to fill to, under `highWater`: a fraction of a second of the lane's measured sends
   * (`createDepthTarget`), so a tenant arriving behind a full queue waits that long, not longer.
   * Without it the pacer fills to `highWater`.
   */
  depthTarget?: DepthTarget
  /**
   * The messages per job of the pacer's recent releases (`createBatchSizes`), shared with what else
   * reads them (the depth target's floor); without it, the pacer keeps its own.
   */
  batching?: BatchSizes
  /** How far ahead of its rate a tenant may be released (PACER_HORIZON_MS). */
  horizonMs: number
  /** PACER_QUANTUM: messages per unit of weight in a tenant's turn (default 1). */
  quantum?: number
  /**
   * How many jobs of each tenant its bucket refused since the last call (`createRefusalTracker`):
   * spent from the tenant's allowance. Without it the pacer relies on its own allowance alone.
   */
  refusals?: (tenantIds: string[]) => Promise<Map<string, number>>
  /**
   * PACER_REDIS_TIMEOUT_MS: every Redis call of a tick gives up after this long. The queue connection
   * has no command timeout of its own (a stopped or paused Redis leaves commands pending forever), and
   * a hung tick is a pacer that releases nothing and never notices Redis came back.
   */
  redisTimeoutMs?: number
  /**
   * DELIVERY_MODE=mx (`createReceiverPacing`): release per provider as its budget allows, shared
   * between the tenants by weight (`releaseByReceiver`), instead of per tenant alone. `refusals`
   * are not used then. Without it: relay mode, `releaseActiveBulk` over the active set.
   */
  receivers?: ReceiverPacing
  /**
   * `pacerWake` (a dispatch just created pending mail) and `providerStateChanged` (a provider
   * throttled): either makes the pacer tick now rather than at its next interval.
   */
  signals?: Pick<DeliverySignals, 'pacerWake' | 'providerStateChanged'>
  tickMs?: number
  idleTickMs?: number
  followerRetryMs?: number
  logger: Logger
  metrics: Pick<
    WorkerMetrics,
    | 'pacerReleased'
    | 'pacerTicks'
    | 'pacerBacklog'
    | 'pacerBacklogTenants'
    | 'pacerTickSeconds'
    | 'pacerTickStepSeconds'
    | 'pacerVisitedTenants'
  >
}

type BulkQueue = Pick<Queue, 'addBulk' | 'getJobCounts'>

export interface BulkLaneQueues {
  queueFor(lane: 'bulk', tenantId: string): BulkQueue
  shardsOf(lane: 'bulk'): readonly BulkQueue[]
}

export interface Pacer {
  stop(): Promise<void>
}

/** Without `redisTimeoutMs`: the default of PACER_REDIS_TIMEOUT_MS. */
export const DEFAULT_PACER_REDIS_TIMEOUT_MS = 2_000

export type TickResult = 'released' | 'full' | 'idle'

/**
 * The bulk pacer: one leader across all worker processes (the `pacer` lease row, renewed every tick;
 * when its holder stops renewing, another process takes it once it expires).
 * Each tick it reads the bulk queue's depth and, under the high-water mark, releases pending rows
 * in weighted deficit round robin (`@fairlane/fairness`), interleaved, so Redis holds a few seconds
 * of work however large the backlogs in PostgreSQL are.
 */
export function startPacer(options: PacerOptions): Pacer {
  const tickMs = options.tickMs ?? PACER_TUNING.tickMs
  const idleTickMs = options.idleTickMs ?? PACER_TUNING.idleTickMs
  const followerRetryMs = options.followerRetryMs ?? PACER_TUNING.followerRetryMs
  const signal = createWakeSignal()
  const memory = createPacerMemory(options.horizonMs, options.quantum)
  const batching = options.batching ?? createBatchSizes(options.batchSize ?? 1)
  let stopped = false
  // A throttle storm (many sends deferred at once) wakes the pacer once a tick, not once a reply:
  // it reads the new rates sooner, it does not spin.
  let providerWokeAtMs = Number.NEGATIVE_INFINITY
  const providerChanged = () => {
    const nowMs = Date.now()
    if (nowMs - providerWokeAtMs < tickMs) return
    providerWokeAtMs = nowMs
    signal.wake()
  }
  const unsubscribes = options.signals
    ? [
        options.signals.pacerWake.subscribe(() => signal.wake()),
        options.signals.providerStateChanged.subscribe(providerChanged),
      ]
    : []
  const leadership = createPacerLeadership({ db: options.db, logger: options.logger, ...options.lease })
  const timingProblems = checkLeaseTiming({
    ttlMs: options.lease?.ttlMs ?? PACER_LEASE.ttlMs,
    marginMs: options.lease?.marginMs ?? PACER_LEASE.marginMs,
    tickMs,
    idleTickMs,
    redisTimeoutMs: options.redisTimeoutMs ?? DEFAULT_PACER_REDIS_TIMEOUT_MS,
  })
  if (timingProblems.length > 0)
    options.logger.warn({ problems: timingProblems }, 'pacer lease timing is off')

  async function loop(): Promise<void> {
    let leading = false
    while (!stopped) {
      let pause = idleTickMs
      try {
        const leads = await leadership.ensure()
        // Taking the lead (again): another leader changed the set meanwhile; read it whole.
        if (leads && !leading) memory.sync.cursor = null
        leading = leads
        if (leads) {
          const startedAtMs = performance.now()
          const result = await paceOnce({ ...options, batching }, memory)
          options.metrics.pacerTickSeconds.observe((performance.now() - startedAtMs) / 1000)
          options.metrics.pacerTicks.inc({ result })
          pause = result === 'idle' ? idleTickMs : tickMs
        } else {
          options.metrics.pacerTicks.inc({ result: 'follower' })
          pause = followerRetryMs
        }
      } catch (error) {
        leading = false
        options.metrics.pacerTicks.inc({ result: 'error' })
        options.logger.warn({ err: (error as Error).message }, 'pacer tick failed; retrying')
        pause = followerRetryMs
      }
      if (stopped) break
      await signal.sleep(pause)
    }
    await leadership.release()
  }

  const running = loop()
  return {
    async stop() {
      stopped = true
      for (const unsubscribe of unsubscribes) unsubscribe()
      signal.interrupt()
      await running
    },
  }
}

/**
 * One tick against the bulk queue and PostgreSQL — relay mode `releaseActiveBulk` over the active set
 * kept in `memory`, MX mode `releaseByReceiver` — each Redis call of it giving up after
 * `redisTimeoutMs`; the set's size (or MX mode's backlog) and the released rows go to the metrics.
 */
export async function paceOnce(
  options: Pick<
    PacerOptions,
    | 'db'
    | 'bulkLane'
    | 'highWater'
    | 'depthTarget'
    | 'horizonMs'
    | 'logger'
    | 'metrics'
    | 'refusals'
    | 'redisTimeoutMs'
    | 'receivers'
    | 'batchSize'
    | 'workerSlots'
  > & {
    /** The messages per job of the pacer's own recent releases, to count the lane's depth in messages. */
    batching?: BatchSizes
  },
  memory: PacerMemory,
  now: () => number = Date.now,
): Promise<TickResult> {
  const redis = <T>(what: string, call: () => Promise<T>) =>
    withTimeout(call(), options.redisTimeoutMs ?? DEFAULT_PACER_REDIS_TIMEOUT_MS, what)
  const { refusals, depthTarget, receivers } = options
  const timed = stepTimer(options.metrics.pacerTickStepSeconds)
  const lane: BulkLane = {
    depth: timed('depth', async () => {
      const shards = await redis('bulk queue depth', () =>
        Promise.all(
          options.bulkLane
            .shardsOf('bulk')
            .map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
        ),
      )
      const jobs = shards.reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0)
      return Math.ceil(jobs * batching.messagesPerJob())
    }),
    async enqueue(released) {
      await redis('bulk addBulk', () =>
        Promise.all(
          [...byShard(options.bulkLane, released)].map(([queue, rows]) =>
            queue.addBulk(rows.map((row) => bulkJob(row))),
          ),
        ),
      )
      batching.record(released.length, released.length)
    },
    enqueueBatches: timed('enqueue', async (batches: readonly ReleasedBatch[]) => {
      await redis('bulk addBulk', () =>
        Promise.all(
          [...byShard(options.bulkLane, batches)].map(([queue, jobs]) => queue.addBulk(jobs.map(batchJob))),
        ),
      )
      batching.record(
        batches.length,
        batches.reduce((sum, batch) => sum + batch.messages.length, 0),
      )
    }),
  }
  const batching = options.batching ?? createBatchSizes(options.batchSize ?? 1)
  const clock = { now: () => new Date(now()) }
  if (receivers) {
    const outcome = await releaseByReceiver(receivers.stage, {
      store: receivers.store,
      lane,
      providers: receivers.providers,
      ratePerMinute: receivers.ratePerMinute,
      ...(receivers.tenantRatePerMinute ? { tenantRatePerMinute: receivers.tenantRatePerMinute } : {}),
      ...(receivers.tenantSharesPerMinute ? { tenantSharesPerMinute: receivers.tenantSharesPerMinute } : {}),
      planner: receivers.planner,
      highWater: options.highWater,
      batchSize: options.batchSize ?? 1,
      ...(depthTarget ? { depthTarget } : {}),
      clock,
      logger: options.logger,
    })
    if (outcome.backlog) {
      options.metrics.pacerBacklogTenants.set(outcome.backlog.tenants)
      options.metrics.pacerBacklog.set(outcome.backlog.rows)
    }
    options.metrics.pacerReleased.inc(outcome.released)
    return outcome.kind
  }
  const db = options.db
  const outcome = await releaseActiveBulk({
    store: {
      readActive: timed('read_active', (input: { after: string | null }) => readActiveTenants(db, input)),
      leaveIfEmpty: timed('leave', (tenants: readonly LeavingTenant[]) => leaveActiveIfEmpty(db, tenants)),
      claim: timed('claim', (quotas: readonly ReleaseQuota[]) => claimBulkRelease(db, quotas)),
      giveBack: (released) => returnBulkRelease(db, released),
    },
    lane,
    planner: memory.flows,
    sync: memory.sync,
    highWater: options.highWater,
    batchSize: options.batchSize ?? 1,
    ...(options.workerSlots === undefined ? {} : { workerSlots: options.workerSlots }),
    ...(depthTarget ? { depthTarget } : {}),
    ...(refusals
      ? {
          refusals: timed('refusals', (tenantIds: string[]) =>
            redis('bucket refusals', () => refusals(tenantIds)),
          ),
        }
      : {}),
    refusalWindowMs: options.horizonMs,
    rereadEveryMs: PACER_TUNING.rereadActiveEveryMs,
    clock,
    logger: options.logger,
  })
  options.metrics.pacerBacklogTenants.set(outcome.activeTenants)
  options.metrics.pacerVisitedTenants.inc(outcome.visited)
  options.metrics.pacerReleased.inc(outcome.released)
  return outcome.kind
}

/** Wraps a tick's step so its duration goes to the step histogram, whether it resolves or throws. */
function stepTimer(histogram: PacerOptions['metrics']['pacerTickStepSeconds']) {
  return <A extends unknown[], R>(step: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const startedAtMs = performance.now()
      try {
        return await call(...args)
      } finally {
        histogram.observe({ step }, (performance.now() - startedAtMs) / 1000)
      }
    }
}

/** The released rows (or batches) per tenant shard, each shard's in the plan's interleaved order. */
function byShard<T extends { tenantId: string }>(
  lane: BulkLaneQueues,
  released: readonly T[],
): Map<BulkQueue, T[]> {
  const shards = new Map<BulkQueue, T[]>()
  for (const row of released) {
    const queue = lane.queueFor('bulk', row.tenantId)
    const rows = shards.get(queue)
    if (rows) rows.push(row)
    else shards.set(queue, [row])
  }
  return shards
}

/** `fresh`: a new flow's first turn, taken before the old flows' jobs (`OLD_FLOWS_PRIORITY`). */
function bulkJob(row: ReleasedMessage, fresh = false) {
  return sendJob({
    lane: 'bulk',
    messageId: row.messageId,
    tenantId: row.tenantId,
    generation: row.generation,
    fresh,
  })
}

/** A batch of one is the message's own job (BULK_BATCH_SIZE=1 adds exactly the jobs it always did). */
function batchJob(batch: ReleasedBatch) {
  const [only] = batch.messages
  const fresh = batch.fresh === true
  if (batch.messages.length === 1 && only) return bulkJob(only, fresh)
  return sendBatchJob({ tenantId: batch.tenantId, messages: batch.messages, fresh })
}

/**
 * How many messages the bulk lane's jobs carry on average, from the pacer's own recent adds: the lane
 * answers its depth in jobs (`getJobCounts`, no per-job reads), the depth target means messages. Until
 * it has added anything it assumes full batches, so a restarted pacer in front of a lane still full
 * of batch jobs does not overfill it. An estimate: the single-message jobs a batch hands out (a
 * retry) count as an average job; they are few.
 */
export interface BatchSizes {
  record(jobs: number, messages: number): void
  messagesPerJob(): number
}

export function createBatchSizes(batchSize: number, window = 20): BatchSizes {
  const recent: Array<{ jobs: number; messages: number }> = []
  return {
    record(jobs, messages) {
      if (jobs <= 0) return
      recent.push({ jobs, messages })
      if (recent.length > window) recent.shift()
    },
    messagesPerJob() {
      if (batchSize === 1 || recent.length === 0) return batchSize
      const jobs = recent.reduce((sum, entry) => sum + entry.jobs, 0)
      const messages = recent.reduce((sum, entry) => sum + entry.messages, 0)
      return Math.max(1, messages / jobs)
    },
  }
}
