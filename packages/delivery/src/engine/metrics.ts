import { type FeedbackCounts, LANES, type Lane } from '@fairlane/core'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { registerFeedbackGauges } from './feedback-gauges'

/** The worker's Prometheus registry; lane, tenant and outbox metrics register here as they arrive. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  registry.setDefaultLabels({ service: 'worker' })
  collectDefaultMetrics({ register: registry })
  return registry
}

export interface WorkerMetrics {
  jobsCompleted: Counter<'lane'>
  /** Every failed attempt, retried or not; `deadLettered` counts the final ones. */
  jobsFailed: Counter<'lane'>
  deadLettered: Counter<'lane'>
  /** Message created (the API accepted it) → the SMTP server accepted it. */
  sendLatency: Histogram<'lane'>
  /** A single message's send, step by step (`SendStep`: claim, compose, connection, token, smtp, mark). */
  sendStep: Histogram<'lane' | 'step'>
  outboxPublished: Counter
  /** Transactional outbox rows parked in PostgreSQL: their tenant was over its lane slots or its turns. */
  outboxParked: Counter
  /** Rows each relay pass claimed (fresh and due parked together); an empty pass is not observed. */
  relayPassRows: Histogram
  relayFailures: Counter
  sweeperRepublished: Counter<'status'>
  /** Accepted sends whose job failed for good before recording them: the sweeper marked them `sent`. */
  sweeperRecordedAccepted: Counter<'lane'>
  /** Jobs moved to delayed because the tenant's bucket had no token (per lane; tenants in Redis counters). */
  deferred: Counter<'lane'>
  /** Sends that failed after the body was handed over: the server may have the mail (claim kept). */
  sendOutcomeUnknown: Counter<'lane'>
  /** Sends the server accepted whose `sent` mark failed: the job retries recording only, never sending. */
  sendNotRecorded: Counter<'lane'>
  pacerReleased: Counter
  pacerTicks: Counter<'result'>
  /** Tenants with pending bulk mail and their backlog (capped per tenant at the pacer's count cap), at the last tick. */
  pacerBacklogTenants: Gauge
  pacerBacklog: Gauge
  /** The leader's tick, from the depth read to the jobs added: it must not grow with the tenants waiting. */
  pacerTickSeconds: Histogram
  /**
   * Each step of a relay-mode tick by duration (`depth`, `read_active`, `refusals`, `claim`,
   * `enqueue`, `leave`): where a slow tick spent its time. Steps that run at once overlap.
   */
  pacerTickStepSeconds: Histogram<'step'>
  /** Tenants the relay-mode planner looked at: it follows the rows released, not the active set. */
  pacerVisitedTenants: Counter
  bulkGovernorFactor: Gauge
  dispatched: Counter<'status'>
  /** Webhook attempts by outcome: `delivered` or the failure's kind (timeout, connection, status, …). */
  webhookAttempts: Counter<'outcome'>
  /** Webhook deliveries the relay leased and queued as attempts. */
  webhookClaimed: Counter
}

/** Registers the delivery metrics; lane series start at 0 so rate() and alerts see them before traffic. */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const registers = [registry]
  const metrics: WorkerMetrics = {
    jobsCompleted: new Counter({
      name: 'fairlane_jobs_completed_total',
      help: 'Lane jobs that completed (sent, or skipped as already done)',
      labelNames: ['lane'],
      registers,
    }),
    jobsFailed: new Counter({
      name: 'fairlane_jobs_failed_total',
      help: 'Failed lane job attempts, including ones that are retried',
      labelNames: ['lane'],
      registers,
    }),
    deadLettered: new Counter({
      name: 'fairlane_dead_lettered_total',
      help: 'Lane jobs that failed for good and were added to the dead-letter queue',
      labelNames: ['lane'],
      registers,
    }),
    sendLatency: new Histogram({
      name: 'fairlane_send_latency_seconds',
      help: 'From message creation to SMTP acceptance',
      labelNames: ['lane'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    sendStep: new Histogram({
      name: 'fairlane_send_step_seconds',
      help: "Each step of one message's send: claim, compose, connection, token, smtp, mark",
      labelNames: ['lane', 'step'],
      buckets: [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    outboxPublished: new Counter({
      name: 'fairlane_outbox_published_total',
      help: 'Outbox rows the relay turned into queue jobs',
      registers,
    }),
    outboxParked: new Counter({
      name: 'fairlane_outbox_parked_total',
      help: 'Transactional outbox rows parked in PostgreSQL because their tenant was over its lane slots or rate',
      registers,
    }),
    relayPassRows: new Histogram({
      name: 'fairlane_relay_pass_rows',
      help: 'Outbox rows one relay pass claimed (fresh and due parked), passes that found any',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      registers,
    }),
    relayFailures: new Counter({
      name: 'fairlane_relay_failures_total',
      help: 'Relay passes that failed and were rolled back (rows stay unpublished)',
      registers,
    }),
    sweeperRepublished: new Counter({
      name: 'fairlane_sweeper_republished_total',
      help: 'Messages the sweeper put back on their lane because their job was gone',
      labelNames: ['status'],
      registers,
    }),
    sweeperRecordedAccepted: new Counter({
      name: 'fairlane_sweeper_accepted_sends_recorded_total',
      help: 'Messages the server accepted whose job failed for good before recording them, marked sent by the sweeper',
      labelNames: ['lane'],
      registers,
    }),
    deferred: new Counter({
      name: 'fairlane_jobs_deferred_total',
      help: 'Lane jobs moved to delayed because the tenant had no token (no attempt spent)',
      labelNames: ['lane'],
      registers,
    }),
    sendOutcomeUnknown: new Counter({
      name: 'fairlane_send_outcome_unknown_total',
      help: 'Sends whose connection failed after the body was handed over, without a reply (claim kept until it expires)',
      labelNames: ['lane'],
      registers,
    }),
    sendNotRecorded: new Counter({
      name: 'fairlane_send_not_recorded_total',
      help: 'Sends the SMTP server accepted whose sent mark failed past its retries (recorded later, never resent)',
      labelNames: ['lane'],
      registers,
    }),
    pacerReleased: new Counter({
      name: 'fairlane_pacer_released_total',
      help: 'Pending bulk messages the pacer released into the bulk queue',
      registers,
    }),
    pacerTicks: new Counter({
      name: 'fairlane_pacer_ticks_total',
      help: 'Pacer ticks by result (released, full, idle, follower, error)',
      labelNames: ['result'],
      registers,
    }),
    pacerBacklogTenants: new Gauge({
      name: 'fairlane_pacer_backlog_tenants',
      help: 'Tenants with pending bulk mail at the last pacer tick',
      registers,
    }),
    pacerBacklog: new Gauge({
      name: 'fairlane_pacer_backlog',
      help: "Pending bulk messages seen at the last pacer tick, MX mode only (each tenant counted up to one more than that tick's free slots)",
      registers,
    }),
    pacerTickSeconds: new Histogram({
      name: 'fairlane_pacer_tick_seconds',
      help: "The pacer leader's ticks by duration: the lane's depth, the active set's changes, the plan, the claim and the add",
      buckets: [0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    pacerTickStepSeconds: new Histogram({
      name: 'fairlane_pacer_tick_step_seconds',
      help: "The steps of the pacer leader's relay-mode ticks by duration (steps that run at once overlap)",
      labelNames: ['step'],
      buckets: [0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    pacerVisitedTenants: new Counter({
      name: 'fairlane_pacer_visited_tenants_total',
      help: 'Tenants the bulk pacer looked at while planning (relay mode): follows what it released',
      registers,
    }),
    bulkGovernorFactor: new Gauge({
      name: 'fairlane_bulk_governor_factor',
      help: 'The share of its full depth and concurrency the bulk lane runs at (1: full), cut while the critical lane is slow',
      registers,
    }),
    dispatched: new Counter({
      name: 'fairlane_campaign_messages_dispatched_total',
      help: 'Campaign messages created by dispatch, by initial status (pending, suppressed)',
      labelNames: ['status'],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'fairlane_webhook_attempts_total',
      help: 'Webhook attempts by outcome (delivered, or why it failed: timeout, connection, tls, redirect, status, body-too-large, forbidden-address)',
      labelNames: ['outcome'],
      registers,
    }),
    webhookClaimed: new Counter({
      name: 'fairlane_webhook_claimed_total',
      help: 'Webhook deliveries the relay leased and queued as attempts',
      registers,
    }),
  }
  for (const lane of LANES) {
    metrics.jobsCompleted.inc({ lane }, 0)
    metrics.jobsFailed.inc({ lane }, 0)
    metrics.deadLettered.inc({ lane }, 0)
    metrics.deferred.inc({ lane }, 0)
    metrics.sendOutcomeUnknown.inc({ lane }, 0)
    metrics.sendNotRecorded.inc({ lane }, 0)
  }
  return metrics
}

/** Job counts of one lane queue, as the gauges report them. */
export interface LaneDepth {
  waiting: number
  active: number
  delayed: number
  failed: number
  /** Age of the job that has waited longest for a worker (since it was added); 0 when none waits. */
  oldestWaitingAgeMs: number
}

/** Where the scrape-time gauges read from (Redis and PostgreSQL in production, anything in tests). */
export interface DepthSource {
  laneDepth(lane: Lane): Promise<LaneDepth>
  deadLetterSize(): Promise<number>
  /** The queue Redis's `used_memory` and `maxmemory` (0: no limit). */
  redisMemory(): Promise<{ usedBytes: number; maxBytes: number }>
  outboxLagMs(): Promise<number>
  /** Webhook deliveries waiting for a 2xx (due, retrying later, or held by a parked endpoint). */
  webhookPending(): Promise<number>
  /** The `limit` tenants with the largest backlog; never called with 0. */
  tenantBacklogs(limit: number): Promise<{ tenantId: string; pending: number; queued: number }[]>
  /** Per tenant with any in the last 24 hours: sends, hard bounces, complaints (`message_events`). */
  tenantFeedback(): Promise<(FeedbackCounts & { tenantId: string })[]>
}

export const LANE_JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const

/**
 * Gauges read when Prometheus scrapes, not kept up to date in between: queue depth and the oldest
 * waiting job's age per lane, the dead-letter queue's size, the outbox lag and the largest tenants'
 * backlogs. Tenant series are bounded by `topTenants` (METRICS_TOP_TENANTS): ids of the N largest
 * backlogs, reset on every scrape so a tenant that drained leaves no stale series behind. A source
 * that fails leaves its gauge empty for that scrape (an absent series, not a stale number) and is
 * counted in `fairlane_metrics_collect_errors_total`.
 */
export function registerDepthGauges(
  registry: Registry,
  source: DepthSource,
  options: {
    topTenants: number
    onError?: (what: string, error: unknown) => void
    /** See `registerFeedbackGauges`; a test reads afresh with 0. */
    feedbackCacheMs?: number
  },
): void {
  const registers = [registry]
  const collectErrors = new Counter({
    name: 'fairlane_metrics_collect_errors_total',
    help: 'Scrape-time gauges that could not be read (Redis or PostgreSQL did not answer)',
    labelNames: ['gauge'],
    registers,
  })
  const guarded = async (gauge: Gauge, what: string, read: () => Promise<void>) => {
    gauge.reset()
    try {
      await read()
    } catch (error) {
      gauge.reset()
      collectErrors.inc({ gauge: what })
      options.onError?.(what, error)
    }
  }
  // One read per lane and scrape, shared by the two lane gauges (both collect in the same scrape).
  let depthRead: { at: number; value: Promise<Record<Lane, LaneDepth>> } | undefined
  const laneDepths = () => {
    const now = Date.now()
    if (!depthRead || now - depthRead.at > 250) {
      const value = Promise.all(
        LANES.map(async (lane) => [lane, await source.laneDepth(lane)] as const),
      ).then((entries) => Object.fromEntries(entries) as Record<Lane, LaneDepth>)
      value.catch(() => {})
      depthRead = { at: now, value }
    }
    return depthRead.value
  }

  const laneJobs: Gauge<'lane' | 'state'> = new Gauge({
    name: 'fairlane_lane_jobs',
    help: 'Jobs in each lane queue by state (waiting includes prioritized), read at scrape time',
    labelNames: ['lane', 'state'],
    registers,
    collect: () =>
      guarded(laneJobs, 'fairlane_lane_jobs', async () => {
        const depths = await laneDepths()
        for (const lane of LANES) {
          for (const state of LANE_JOB_STATES) laneJobs.set({ lane, state }, depths[lane][state])
        }
      }),
  })
  const oldestWaiting: Gauge<'lane'> = new Gauge({
    name: 'fairlane_lane_oldest_waiting_age_seconds',
    help: 'Age of the job that has waited longest in each lane (0 when none waits), read at scrape time',
    labelNames: ['lane'],
    registers,
    collect: () =>
      guarded(oldestWaiting, 'fairlane_lane_oldest_waiting_age_seconds', async () => {
        const depths = await laneDepths()
        for (const lane of LANES) oldestWaiting.set({ lane }, depths[lane].oldestWaitingAgeMs / 1000)
      }),
  })
  const deadLetters: Gauge = new Gauge({
    name: 'fairlane_dead_letter_queue_size',
    help: 'Dead letters waiting for an admin to replay or discard them',
    registers,
    collect: () =>
      guarded(deadLetters, 'fairlane_dead_letter_queue_size', async () => {
        deadLetters.set(await source.deadLetterSize())
      }),
  })
  // One INFO per scrape, shared by the two memory gauges.
  let memoryRead: { at: number; value: Promise<{ usedBytes: number; maxBytes: number }> } | undefined
  const redisMemory = () => {
    const now = Date.now()
    if (!memoryRead || now - memoryRead.at > 250) {
      const value = source.redisMemory()
      value.catch(() => {})
      memoryRead = { at: now, value }
    }
    return memoryRead.value
  }
  const redisUsed: Gauge = new Gauge({
    name: 'fairlane_redis_used_memory_bytes',
    help: 'Memory the queue Redis uses (INFO used_memory); with noeviction every write fails once it reaches maxmemory',
    registers,
    collect: () =>
      guarded(redisUsed, 'fairlane_redis_used_memory_bytes', async () => {
        redisUsed.set((await redisMemory()).usedBytes)
      }),
  })
  const redisMax: Gauge = new Gauge({
    name: 'fairlane_redis_maxmemory_bytes',
    help: 'The queue Redis maxmemory (INFO maxmemory; 0: no limit set)',
    registers,
    collect: () =>
      guarded(redisMax, 'fairlane_redis_maxmemory_bytes', async () => {
        redisMax.set((await redisMemory()).maxBytes)
      }),
  })
  const outboxLag: Gauge = new Gauge({
    name: 'fairlane_outbox_lag_seconds',
    help: 'Age of the oldest unpublished outbox row (0 when the relay is caught up)',
    registers,
    collect: () =>
      guarded(outboxLag, 'fairlane_outbox_lag_seconds', async () => {
        outboxLag.set((await source.outboxLagMs()) / 1000)
      }),
  })
  const webhookPending: Gauge = new Gauge({
    name: 'fairlane_webhook_pending_deliveries',
    help: 'Webhook deliveries not yet answered 2xx (due, waiting for a retry, or held by a parked endpoint)',
    registers,
    collect: () =>
      guarded(webhookPending, 'fairlane_webhook_pending_deliveries', async () => {
        webhookPending.set(await source.webhookPending())
      }),
  })
  const tenantBacklog: Gauge<'tenant' | 'status'> = new Gauge({
    name: 'fairlane_tenant_backlog',
    help: 'Messages not yet sent (pending in PostgreSQL, queued in Redis) of the tenants with the largest backlogs (METRICS_TOP_TENANTS), each counted up to 10,000 (TENANT_BACKLOG_COUNT_CAP)',
    labelNames: ['tenant', 'status'],
    registers,
    collect: () =>
      guarded(tenantBacklog, 'fairlane_tenant_backlog', async () => {
        if (options.topTenants <= 0) return
        for (const row of await source.tenantBacklogs(options.topTenants)) {
          tenantBacklog.set({ tenant: row.tenantId, status: 'pending' }, row.pending)
          tenantBacklog.set({ tenant: row.tenantId, status: 'queued' }, row.queued)
        }
      }),
  })
  registerFeedbackGauges(registers, source, guarded, {
    topTenants: options.topTenants,
    cacheMs: options.feedbackCacheMs,
  })
}
