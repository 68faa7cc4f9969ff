import { LANES, trackingKey, unsubscribeKey } from '@fairlane/core'
import { ownLanePlan } from '@fairlane/core/accept'
import { PACER_CHANNEL } from '@fairlane/core/pacing'
import { createDatabase } from '@fairlane/db'
import { addDeferralCounts } from '@fairlane/db/queries/deferral-counts'
import { findTenantPlan } from '@fairlane/db/queries/pacer'
import { findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import {
  createLaneAdmission,
  createReceiverCounters,
  createReceiverDemand,
  createTokenBuckets,
} from '@fairlane/fairness'
import { closeLaneTransports, createLaneTransports } from '@fairlane/mail'
import { closeQueues, createProducerConnection, createQueues } from '@fairlane/queue'
import { createCampaignRenderer } from './campaigns/campaign-renderer'
import {
  DEFAULT_TRANSACTIONAL_LANES,
  type DELIVERY_TUNING,
  type DeliveryOptions,
  resolveTuning,
} from './delivery-options'
import { governedDepthTarget, governorSettings, startBulkGovernor } from './fairness/bulk-governor'
import { createDeferralRecorder } from './fairness/deferral-recorder'
import { createDepthTarget } from './fairness/depth-target'
import { createBatchSizes, startPacer } from './fairness/pacer'
import { createPlanCache } from './fairness/plan-cache'
import { createReceiverPacing } from './fairness/receiver-pacing'
import { createRefusalTracker } from './fairness/tenant-gate'
import { sendDeadlineMs } from './lanes/smtp-mailer'
import { startLanes } from './lanes/start-lanes'
import { listenOrPoll } from './listen-or-poll'
import type { DepthSource } from './metrics'
import { createDepthSource } from './metrics-sources'
import { PACER_STANDBY_MS, processRoles, RELAY_BACKSTOP_AFTER_MS } from './process-roles'
import { withProviderSignals } from './receivers/provider-signals'
import { startReceivers } from './receivers/start-receivers'
import { createWarmupCheck } from './receivers/warmup'
import { createParkingState } from './relay/lane-parking'
import { startRelay } from './relay/relay'
import { startScheduledReleaser } from './scheduled/releaser'
import type { ShutdownStep } from './shutdown'
import { createDeliverySignals } from './signals'
import { startSweeper } from './sweeper/sweeper'
import { startSystem } from './system/start-system'
import { createApiMailTracker } from './tracking/api-mail-tracker'
import { startWebhooks } from './webhooks/start-webhooks'

export {
  DEFAULT_FAILURE_CAPS,
  DEFAULT_TRANSACTIONAL_LANES,
  DELIVERY_TUNING,
  type DeliveryOptions,
  deliveryOptionsFromConfig,
  type FailureCaps,
  type TransactionalLaneSettings,
} from './delivery-options'
export { startSystem } from './system/start-system'
export { DEAD_LETTER_RESTORE_SCHEDULER_ID, DISPATCH_SCHEDULER_ID } from './system/system-jobs'

/** Without a slot given back in this process, a tenant whose slots were full is looked at again after this. */
const SLOT_RETRY_MS = 250

export interface Delivery {
  /** What the delivery side runs with, for the boot log. */
  settings: { sendDeadlineMs: number } & typeof DELIVERY_TUNING
  /** What the scrape-time gauges read (queue depths, dead letters, outbox lag, backlogs). */
  depthSource: DepthSource
  /** Relay and sweeper first, then the lane workers (running sends finish), then what they used. */
  shutdownSteps(): ShutdownStep[]
}

/**
 * Wires the delivery side: relay, sweeper, campaign dispatch, the bulk pacer and the lane workers
 * behind their tenants' token buckets, with the connections each needs.
 */
export async function startDelivery(options: DeliveryOptions): Promise<Delivery> {
  const { database, logger, metrics } = options
  const tuning = resolveTuning(options.tuning)
  // What the parts tell each other (a slot freed, a dispatch, a provider throttling): one object, each
  // part subscribing to what it reacts to, instead of callbacks handed from one part to the next.
  const signals = createDeliverySignals({ logger: logger.child({ component: 'signals' }) })
  // Producers fail fast while Redis is away (the relay rolls back and retries) instead of queueing
  // commands offline with row locks held.
  const producer = createProducerConnection(
    { url: options.redisUrl, cluster: options.redisCluster },
    'worker-producer',
    logger,
  )
  const queues = createQueues(producer, options.queuePrefix, logger, options.laneShards)
  // LISTEN needs a connection of its own, outside the pool (and outside PgBouncer).
  const listen = createDatabase(options.databaseDirectUrl, { max: 1, applicationName: 'worker-relay-listen' })
  const transports = createLaneTransports({
    smtpUrl: options.smtp.url,
    timeoutMs: options.smtp.timeoutMs,
    connections: options.smtp.connections,
  })
  const deadlineMs = sendDeadlineMs({
    smtpTimeoutMs: options.smtp.timeoutMs,
    sendLockMs: options.sendLockMs,
    forceExitMs: options.forceExitMs,
  })
  const admission = createLaneAdmission(producer, { prefix: `${options.queuePrefix}:` })
  const lanesSettings = options.transactionalLanes ?? DEFAULT_TRANSACTIONAL_LANES
  // The relay's turns and the lane workers' buckets read one cache, so both hold a tenant to the same
  // transactional plan (its own, the platform's filling what it leaves open) within the refresh.
  const transactionalPlans = createPlanCache({
    load: async (tenantId) => {
      const own = (await findTenantAdmissionPlan(database.db, { tenantId }))?.transactional
      return own ? ownLanePlan(options.transactionalPlan, own) : undefined
    },
    ...tuning.plans,
  })
  const roles = processRoles(options.lanes ?? LANES)
  const relay = startRelay({
    fairness: {
      admission,
      plan: options.transactionalPlan,
      planFor: async (tenantId) => (await transactionalPlans.get(tenantId)) ?? options.transactionalPlan,
      slots: lanesSettings.slots,
      slotTtlMs: lanesSettings.slotTtlMs,
      horizonMs: lanesSettings.horizonMs,
      slotRetryMs: SLOT_RETRY_MS,
      parking: createParkingState(),
    },
    db: database.db,
    listenSql: listen.sql,
    lanes: queues.lanes,
    // Relay mode only: an MX-mode batch goes to one receiving provider (its first recipient's), and
    // the relay does not know its rows' providers, so there each default-lane row stays its own job.
    ...(lanesSettings.batchSize === undefined || options.receivers
      ? {}
      : { txBatchSize: lanesSettings.batchSize }),
    skipIds: new Set(),
    logger: logger.child({ component: 'relay' }),
    metrics,
    hooks: options.relayHooks,
    signals,
    ...tuning.relay,
    ...(roles.relayBackstopOnly ? { backstopAfterMs: RELAY_BACKSTOP_AFTER_MS } : {}),
  })
  const sweeper = startSweeper({
    db: database.db,
    lanes: queues.lanes,
    logger: logger.child({ component: 'sweeper' }),
    metrics,
    ...tuning.sweeper,
  })
  const scheduled = startScheduledReleaser({
    db: database.db,
    logger: logger.child({ component: 'scheduled-releaser' }),
    ...tuning.scheduled,
  })
  const buckets = createTokenBuckets(producer, { prefix: `${options.queuePrefix}:` })
  const started = options.receivers
    ? startReceivers(options.receivers, {
        db: database.db,
        buckets,
        warmup: createWarmupCheck({
          rules: options.receivers.rules,
          db: database.db,
          redis: producer,
          prefix: `${options.queuePrefix}:`,
        }),
        // The web app's `GET /api/admin/receivers` reads them under the same prefix.
        counters: createReceiverCounters(producer, { prefix: `${options.queuePrefix}:` }),
        // Shared by every worker: each tenant's demand at each provider, for their shares.
        demand: createReceiverDemand(producer, { prefix: `${options.queuePrefix}:` }),
        onCountError: (error) => logger.warn({ err: String(error) }, 'receiver count not recorded'),
      })
    : undefined
  // The pacer hears of a provider's new state at once, not at its next tick, and reads it afresh:
  // subscribed before the pacer, so its cached states are gone when the pacer's tick asks.
  const receivers = started?.gate ? { ...started, gate: withProviderSignals(started.gate, signals) } : started
  const forgetRates = started
    ? signals.providerStateChanged.subscribe(() => started.forgetRates())
    : undefined
  const governor = options.bulkGovernorTargetMs
    ? startBulkGovernor({
        redis: producer,
        prefix: options.queuePrefix,
        settings: governorSettings(options.bulkGovernorTargetMs),
        steers: (options.lanes ?? LANES).includes('critical'),
        logger: logger.child({ component: 'bulk-governor' }),
        gauge: metrics.bulkGovernorFactor,
      })
    : undefined
  // The messages the pacer's jobs carry of late: batches are as large as a tenant's turn and the
  // tick's room allow, often far under BULK_BATCH_SIZE.
  const batching = createBatchSizes(options.pacer.batchSize ?? 1)
  const measuredDepth =
    options.pacer.queueMs === undefined
      ? undefined
      : createDepthTarget({
          // In messages: two jobs per bulk worker slot, and with batches two per SMTP connection, so
          // every connection has a batch to send — of the size the jobs have now, not of
          // BULK_BATCH_SIZE: 16 jobs of 50 would be 800 messages, seconds of queue in front of a
          // newcomer when turns of 3 make the jobs (a lane sending 100 a second held 3 s).
          minDepth: () =>
            Math.min(
              options.pacer.highWater,
              Math.max(
                2 * options.concurrency.bulk,
                Math.ceil(2 * options.smtp.connections.bulk * batching.messagesPerJob()),
              ),
            ),
          maxDepth: options.pacer.highWater,
          queueSeconds: options.pacer.queueMs / 1000,
        })
  const depthTarget = governor
    ? governedDepthTarget(measuredDepth, options.pacer.highWater, governor)
    : measuredDepth
  // Every process may lead the pacer; the split layout's bulk process only stands by (`processRoles`).
  const pacer = startPacer({
    db: database.db,
    bulkLane: queues.lanes,
    batching,
    highWater: options.pacer.highWater,
    ...(depthTarget ? { depthTarget } : {}),
    horizonMs: options.pacer.horizonMs,
    ...(options.pacer.quantum === undefined ? {} : { quantum: options.pacer.quantum }),
    ...(options.pacer.redisTimeoutMs === undefined ? {} : { redisTimeoutMs: options.pacer.redisTimeoutMs }),
    ...(options.pacer.batchSize === undefined ? {} : { batchSize: options.pacer.batchSize }),
    // A batch holds one SMTP connection from its first send to its last, so the batches that can
    // run at once are the fewer of the lane's worker slots and its connections (8 connections
    // under 20 slots: 8 batches at work, the other jobs wait for a connection).
    workerSlots: Math.min(options.concurrency.bulk, options.smtp.connections.bulk),
    refusals: createRefusalTracker(buckets),
    // MX mode: campaign mail released per receiving provider, as each one's budget allows.
    ...(receivers?.gate
      ? {
          receivers: createReceiverPacing({
            db: database.db,
            horizonMs: options.pacer.horizonMs,
            providers: receivers.providers,
            ratePerMinute: receivers.ratePerMinute,
            tenantRatePerMinute: receivers.tenantRatePerMinute,
            ...(receivers.tenantSharesPerMinute
              ? { tenantSharesPerMinute: receivers.tenantSharesPerMinute }
              : {}),
          }),
        }
      : {}),
    signals,
    logger: logger.child({ component: 'pacer' }),
    metrics,
    ...tuning.pacer,
    ...(roles.pacer === 'standby' ? { lease: { standbyMs: PACER_STANDBY_MS } } : {}),
  })
  // A dispatch in any process wakes the leader, wherever it runs (`PACER_CHANNEL`, NOTIFY at the
  // dispatch's commit): in the split layout the dispatcher may run in the bulk process.
  const pacerListener = await listenOrPoll(listen.sql, {
    channel: PACER_CHANNEL,
    wake: () => signals.pacerWake.emit(),
    logger,
    who: 'pacer',
    fallback: 'it ticks at its interval',
  })
  const system = await startSystem(options, { queues, redis: producer, signals, tuning })
  const plans = createPlanCache({
    load: (tenantId) => findTenantPlan(database.db, tenantId),
    ...tuning.plans,
  })
  const deferrals = createDeferralRecorder({
    write: (counts) => addDeferralCounts(database.db, counts),
    logger: logger.child({ component: 'deferral-counts' }),
  })
  // The web app verifies with the same keys: both derive them from UNSUBSCRIBE_SECRET.
  const tracking = trackingKey(options.unsubscribe.secrets)
  const lanes = startLanes(options, {
    queues,
    transports,
    ...(receivers ? { receivers } : {}),
    deadlineMs,
    buckets,
    plans,
    transactionalPlans,
    deferrals,
    admission,
    signals,
    ...(governor ? { governor } : {}),
    campaigns: createCampaignRenderer({
      db: database.db,
      appUrl: options.appUrl,
      unsubscribeKey: unsubscribeKey(options.unsubscribe),
      trackingKey: tracking,
    }),
    tracker: createApiMailTracker({ db: database.db, appUrl: options.appUrl, key: tracking }),
  })

  // The webhook lane lives with the default lane: under WORKER_LAYOUT=split that is worker-tx, so a
  // bulk-only process (nice 10) never delays an event, and the lane runs in exactly one kind of process.
  const webhooks =
    options.webhooks && (options.lanes ?? LANES).includes('default')
      ? startWebhooks(options.webhooks, {
          database,
          databaseDirectUrl: options.databaseDirectUrl,
          redisUrl: options.redisUrl,
          redisCluster: options.redisCluster,
          queuePrefix: options.queuePrefix,
          producer,
          buckets,
          logger,
          metrics,
        })
      : undefined

  return {
    settings: { sendDeadlineMs: deadlineMs, ...tuning },
    depthSource: createDepthSource({ queues, db: database.db, redis: producer }),
    shutdownSteps: () => [
      {
        name: 'relay, sweeper, scheduled releaser, pacer and dispatcher',
        run: async () => {
          governor?.stop()
          forgetRates?.()
          await pacerListener?.unlisten().catch(() => {})
          await Promise.all([relay.stop(), sweeper.stop(), scheduled.stop(), pacer.stop(), system.close()])
        },
      },
      ...(webhooks ? webhooks.shutdownSteps() : []),
      { name: 'lane workers', run: () => lanes.close() },
      { name: 'deferral counts', run: () => deferrals.close() },
      {
        name: 'smtp transports',
        run: () => {
          receivers?.close()
          closeLaneTransports(transports)
        },
      },
      { name: 'queues', run: () => closeQueues(queues) },
      { name: 'redis', run: async () => void (await producer.quit()) },
      { name: 'database', run: async () => void (await Promise.all([listen.close(), database.close()])) },
    ],
  }
}
