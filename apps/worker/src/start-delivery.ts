import type { Config } from '@fairlane/config'
import { mailDomain } from '@fairlane/config'
import { type KeyEncryptionKey, LANES, type Lane, unsubscribeKey } from '@fairlane/core'
import {
  type CampaignRenderer,
  recordAcceptedSend,
  type SendDeps,
  sendMessage,
} from '@fairlane/core/delivery'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { addDeferralCounts } from '@fairlane/db/queries/deferral-counts'
import { createDeliveryStore } from '@fairlane/db/queries/delivery'
import { findTenantPlan } from '@fairlane/db/queries/pacer'
import { findSigningDomain } from '@fairlane/db/queries/sender-signing'
import {
  type BucketPlan,
  createLaneAdmission,
  createTokenBuckets,
  governed,
  type LaneAdmission,
  type TokenBuckets,
} from '@fairlane/fairness'
import { closeLaneTransports, createLaneTransports, type LaneTransports, messageIdFor } from '@fairlane/mail'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  DEAD_LETTER_QUEUE,
  failedJobRetention,
  type Queues,
  SYSTEM_QUEUE,
} from '@fairlane/queue'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { createCampaignRenderer } from './campaigns/campaign-renderer'
import { DISPATCH_TUNING, dispatchDue } from './campaigns/dispatch-due'
import { createSenderSigner } from './delivery/sender-signer'
import {
  DEFAULT_DOMAIN_CHECK_SETTINGS,
  type DomainCheckSettings,
  domainCheckHandlers,
  domainCheckSchedules,
} from './domains/domain-checks-jobs'
import {
  type BulkGovernor,
  governedDepthTarget,
  governorSettings,
  startBulkGovernor,
} from './fairness/bulk-governor'
import { createDeferralRecorder, type DeferralRecorder } from './fairness/deferral-recorder'
import { createDepthTarget } from './fairness/depth-target'
import { PACER_TUNING, type Pacer, startPacer } from './fairness/pacer'
import { createPlanCache, type PlanCache } from './fairness/plan-cache'
import { createRefusalTracker, createTenantGate, planSourceFor } from './fairness/tenant-gate'
import { restoreDeadLetters } from './lanes/dead-letter-restore'
import { trimDeadLetters } from './lanes/dead-letter-trim'
import { createDeadLetters } from './lanes/dead-letters'
import { type LaneWorkers, startLaneWorkers } from './lanes/lane-workers'
import { createSendProcessor } from './lanes/send-processor'
import { createSmtpMailer, sendDeadlineMs } from './lanes/smtp-mailer'
import type { DepthSource, WorkerMetrics } from './metrics'
import { createDepthSource } from './metrics-sources'
import {
  DEFAULT_OPERATIONS_SETTINGS,
  type OperationsSettings,
  operationsHandlers,
  operationsSchedules,
} from './operations/operations-jobs'
import { createParkingState } from './relay/lane-parking'
import type { RelayHooks } from './relay/publish-batch'
import { type Relay, startRelay } from './relay/relay'
import type { ShutdownStep } from './shutdown'
import { startSweeper } from './sweeper/sweeper'
import { SCHEDULE_RECONCILE_MS, startSystemWorker } from './system/system-worker'

/**
 * Relay and sweeper tuning. Not environment variables (yet): the defaults suit production, and tests
 * pass their own. relay.pollMs is the fallback when a NOTIFY is missed; the sweeper's queuedForMs is
 * how long a message may sit `queued` with no job before it is published again (well above the
 * relay's worst normal delay, so a healthy relay never races it).
 */
export const DELIVERY_TUNING = {
  relay: { pollMs: 1_000, batchSize: 500, maxBackoffMs: 5_000, addTimeoutMs: 10_000 },
  sweeper: { intervalMs: 5_000, queuedForMs: 30_000, batchSize: 500 },
  pacer: PACER_TUNING,
  dispatch: { ...DISPATCH_TUNING, everyMs: 1_000 },
  /** How stale a tenant's plan may be in the buckets: a plan change is obeyed within this. */
  plans: { refreshMs: 2_000 },
  /**
   * How often the system worker upserts its schedulers again (they vanish with a FLUSHALL), and how
   * often it checks that the dead-letter queue is whole (one EXISTS; restored from PostgreSQL if not).
   */
  system: { reconcileEveryMs: SCHEDULE_RECONCILE_MS, deadLetterCheckEveryMs: 10_000 },
}

/** The dispatcher's job scheduler id (stable: every worker process upserts the same schedule). */
export const DISPATCH_SCHEDULER_ID = 'campaign-dispatch'
/** Checks the dead-letter queue is whole, and restores it from PostgreSQL when Redis lost it. */
export const DEAD_LETTER_RESTORE_SCHEDULER_ID = 'dead-letter-restore'
const CAMPAIGN_DUE_JOB = 'campaign-due'

export interface DeliveryOptions {
  database: DatabaseHandle
  databaseUrl: string
  redisUrl: string
  queuePrefix: string
  smtp: { url: string; timeoutMs: number; connections: Record<Lane, number> }
  concurrency: Record<Lane, number>
  jobLockMs: number
  stalledIntervalMs: number
  sendLockMs: number
  /** SHUTDOWN_FORCE_EXIT_MS: sends are given a deadline that ends before it. */
  forceExitMs: number
  mailFrom: string
  mailDomain: string
  /** APP_URL, for the unsubscribe links in campaign mail. */
  appUrl: string
  /** UNSUBSCRIBE_SECRET (the first key signs) and SESSION_SECRET: the unsubscribe keys the web app verifies with. */
  unsubscribe: { secrets: readonly { kid: number; secret: string }[]; sessionSecret: string }
  /** BOUNCE_DOMAIN: the return-path host of platform-sender mail (the VERP secret is UNSUBSCRIBE_SECRET's first). */
  bounceDomain: string
  /** DKIM_ENCRYPTION_KEY: decrypts the sending domains' DKIM private keys. */
  dkimEncryptionKeys: readonly KeyEncryptionKey[]
  /**
   * How long a domain's signing answer (its parsed key, or why its mail is held) is reused; default
   * `SENDER_SIGNER_TTL_MS`. A domain turned failed or rotated takes effect in the worker within it.
   */
  senderSignerTtlMs?: number
  /** `queueMs`: fill the bulk queue to that much of its measured sending (`createDepthTarget`), not to `highWater`. */
  pacer: { highWater: number; horizonMs: number; queueMs?: number; redisTimeoutMs?: number }
  /** Every tenant's own bucket on each transactional lane (critical, default). */
  transactionalPlan: BucketPlan
  /**
   * TRANSACTIONAL_TENANT_SLOTS, TRANSACTIONAL_SLOT_TTL_MS, TRANSACTIONAL_HORIZON_MS: how much of a
   * transactional lane one tenant may hold, and how far ahead of its turn (`relay/lane-parking.ts`).
   * Defaults to `DEFAULT_TRANSACTIONAL_LANES`.
   */
  transactionalLanes?: TransactionalLaneSettings
  /** SCHEDULE_TIME_ZONE and AUDIT_RETENTION_DAYS; defaults to UTC and 365 days. */
  operations?: OperationsSettings
  /** Sending domains' scheduled DNS checks: RETURN_PATH_HOST and DNS_SERVERS. */
  domains?: DomainCheckSettings
  logger: Logger
  metrics: WorkerMetrics
  tuning?: {
    relay?: Partial<typeof DELIVERY_TUNING.relay>
    sweeper?: Partial<typeof DELIVERY_TUNING.sweeper>
    pacer?: Partial<typeof DELIVERY_TUNING.pacer>
    dispatch?: Partial<typeof DELIVERY_TUNING.dispatch>
    plans?: Partial<typeof DELIVERY_TUNING.plans>
    system?: Partial<typeof DELIVERY_TUNING.system>
  }
  relayHooks?: RelayHooks
  /** Defaults to every lane. */
  lanes?: readonly Lane[]
  /** What Redis keeps of failures (FAILED_JOBS_*, DEAD_LETTER_*); defaults to `DEFAULT_FAILURE_CAPS`. */
  caps?: FailureCaps
  /** BULK_GOVERNOR_TARGET_MS: the critical lane's p95 the bulk lane yields to; 0 or absent: no governor. */
  bulkGovernorTargetMs?: number
}

export interface TransactionalLaneSettings {
  slots: number
  slotTtlMs: number
  horizonMs: number
}

/** The schema's defaults, for callers (tests) that build options without a config. */
export const DEFAULT_TRANSACTIONAL_LANES: TransactionalLaneSettings = {
  slots: 10,
  slotTtlMs: 30_000,
  horizonMs: 1_000,
}

/** Without a slot given back in this process, a tenant whose slots were full is looked at again after this. */
const SLOT_RETRY_MS = 250

export interface FailureCaps {
  failedJobs: { maxCount: number; maxAgeHours: number }
  deadLetters: { maxCount: number; maxAgeDays: number }
}

/** The schema's defaults, for callers (tests) that build options without a config. */
export const DEFAULT_FAILURE_CAPS: FailureCaps = {
  failedJobs: { maxCount: 1_000, maxAgeHours: 24 },
  deadLetters: { maxCount: 10_000, maxAgeDays: 30 },
}

export interface Delivery {
  /** What the delivery side runs with, for the boot log. */
  settings: { sendDeadlineMs: number } & typeof DELIVERY_TUNING
  /** What the scrape-time gauges read (queue depths, dead letters, outbox lag, backlogs). */
  depthSource: DepthSource
  /** Relay and sweeper first, then the lane workers (running sends finish), then what they used. */
  shutdownSteps(): ShutdownStep[]
}

export function deliveryOptionsFromConfig(
  config: Config,
  deps: Pick<DeliveryOptions, 'database' | 'logger' | 'metrics'>,
): DeliveryOptions {
  return {
    ...deps,
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    queuePrefix: config.QUEUE_PREFIX,
    smtp: {
      url: config.SMTP_URL,
      timeoutMs: config.SMTP_TIMEOUT_MS,
      connections: {
        critical: config.CRITICAL_SMTP_CONNECTIONS,
        default: config.DEFAULT_SMTP_CONNECTIONS,
        bulk: config.BULK_SMTP_CONNECTIONS,
      },
    },
    concurrency: {
      critical: config.CRITICAL_CONCURRENCY,
      default: config.DEFAULT_CONCURRENCY,
      bulk: config.BULK_CONCURRENCY,
    },
    jobLockMs: config.JOB_LOCK_MS,
    stalledIntervalMs: config.STALLED_INTERVAL_MS,
    sendLockMs: config.SEND_LOCK_MS,
    forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS,
    mailFrom: config.MAIL_FROM,
    mailDomain: mailDomain(config),
    appUrl: config.APP_URL,
    unsubscribe: { secrets: config.UNSUBSCRIBE_SECRET, sessionSecret: config.SESSION_SECRET },
    bounceDomain: config.BOUNCE_DOMAIN,
    dkimEncryptionKeys: config.DKIM_ENCRYPTION_KEY,
    pacer: {
      highWater: config.PACER_HIGH_WATER,
      horizonMs: config.PACER_HORIZON_MS,
      queueMs: config.PACER_QUEUE_MS,
      redisTimeoutMs: config.PACER_REDIS_TIMEOUT_MS,
    },
    transactionalPlan: { ratePerSec: config.TRANSACTIONAL_RATE_PER_SEC, burst: config.TRANSACTIONAL_BURST },
    bulkGovernorTargetMs: config.BULK_GOVERNOR_TARGET_MS,
    transactionalLanes: {
      slots: config.TRANSACTIONAL_TENANT_SLOTS,
      slotTtlMs: config.TRANSACTIONAL_SLOT_TTL_MS,
      horizonMs: config.TRANSACTIONAL_HORIZON_MS,
    },
    operations: {
      timeZone: config.SCHEDULE_TIME_ZONE,
      auditRetentionDays: config.AUDIT_RETENTION_DAYS,
      bodyRetention: {
        days: config.MESSAGE_BODY_RETENTION_DAYS,
        criticalDays: config.MESSAGE_BODY_RETENTION_DAYS_CRITICAL,
      },
      eventRetentionDays: config.EVENT_RETENTION_DAYS,
    },
    domains: { returnPathHost: config.RETURN_PATH_HOST, dnsServers: config.DNS_SERVERS },
    lanes: config.WORKER_LANES,
    caps: {
      failedJobs: { maxCount: config.FAILED_JOBS_MAX_COUNT, maxAgeHours: config.FAILED_JOBS_MAX_AGE_HOURS },
      deadLetters: { maxCount: config.DEAD_LETTER_MAX_COUNT, maxAgeDays: config.DEAD_LETTER_MAX_AGE_DAYS },
    },
  }
}

/**
 * Wires the delivery side: relay, sweeper, campaign dispatch, the bulk pacer and the lane workers
 * behind their tenants' token buckets, with the connections each needs.
 */
export async function startDelivery(options: DeliveryOptions): Promise<Delivery> {
  const { database, logger, metrics } = options
  const tuning = {
    relay: { ...DELIVERY_TUNING.relay, ...options.tuning?.relay },
    sweeper: { ...DELIVERY_TUNING.sweeper, ...options.tuning?.sweeper },
    pacer: { ...DELIVERY_TUNING.pacer, ...options.tuning?.pacer },
    dispatch: { ...DELIVERY_TUNING.dispatch, ...options.tuning?.dispatch },
    plans: { ...DELIVERY_TUNING.plans, ...options.tuning?.plans },
    system: { ...DELIVERY_TUNING.system, ...options.tuning?.system },
  }
  // Producers fail fast while Redis is away (the relay rolls back and retries) instead of queueing
  // commands offline with row locks held.
  const producer = createProducerConnection(options.redisUrl, 'worker-producer', logger)
  const queues = createQueues(producer, options.queuePrefix, logger)
  // LISTEN needs a connection of its own, outside the pool (and outside PgBouncer).
  const listen = createDatabase(options.databaseUrl, { max: 1, applicationName: 'worker-relay-listen' })
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
  const relay = startRelay({
    fairness: {
      admission,
      plan: options.transactionalPlan,
      slots: lanesSettings.slots,
      slotTtlMs: lanesSettings.slotTtlMs,
      horizonMs: lanesSettings.horizonMs,
      slotRetryMs: SLOT_RETRY_MS,
      parking: createParkingState(),
    },
    db: database.db,
    listenSql: listen.sql,
    queues,
    skipIds: new Set(),
    logger: logger.child({ component: 'relay' }),
    metrics,
    hooks: options.relayHooks,
    ...tuning.relay,
  })
  const sweeper = startSweeper({
    db: database.db,
    queues,
    logger: logger.child({ component: 'sweeper' }),
    metrics,
    ...tuning.sweeper,
  })
  const buckets = createTokenBuckets(producer, { prefix: `${options.queuePrefix}:` })
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
  const measuredDepth =
    options.pacer.queueMs === undefined
      ? undefined
      : createDepthTarget({
          minDepth: Math.min(options.pacer.highWater, 2 * options.concurrency.bulk),
          maxDepth: options.pacer.highWater,
          queueSeconds: options.pacer.queueMs / 1000,
        })
  const depthTarget = governor
    ? governedDepthTarget(measuredDepth, options.pacer.highWater, governor)
    : measuredDepth
  const pacer = startPacer({
    db: database.db,
    sql: database.sql,
    bulkQueue: queues.bulk,
    highWater: options.pacer.highWater,
    ...(depthTarget ? { depthTarget } : {}),
    horizonMs: options.pacer.horizonMs,
    ...(options.pacer.redisTimeoutMs === undefined ? {} : { redisTimeoutMs: options.pacer.redisTimeoutMs }),
    refusals: createRefusalTracker(buckets),
    logger: logger.child({ component: 'pacer' }),
    metrics,
    ...tuning.pacer,
  })
  const system = await startSystem(options, { queues, redis: producer, pacer, tuning })
  const plans = createPlanCache({
    load: (tenantId) => findTenantPlan(database.db, tenantId),
    ...tuning.plans,
  })
  const deferrals = createDeferralRecorder({
    write: (counts) => addDeferralCounts(database.db, counts),
    logger: logger.child({ component: 'deferral-counts' }),
  })
  const lanes = startLanes(options, {
    queues,
    transports,
    deadlineMs,
    buckets,
    plans,
    deferrals,
    admission,
    relay,
    ...(governor ? { governor } : {}),
    campaigns: createCampaignRenderer({
      db: database.db,
      appUrl: options.appUrl,
      unsubscribeKey: unsubscribeKey(options.unsubscribe),
    }),
  })

  return {
    settings: { sendDeadlineMs: deadlineMs, ...tuning },
    depthSource: createDepthSource({ queues, db: database.db, redis: producer }),
    shutdownSteps: () => [
      {
        name: 'relay, sweeper, pacer and dispatcher',
        run: async () => {
          governor?.stop()
          await Promise.all([relay.stop(), sweeper.stop(), pacer.stop(), system.close()])
        },
      },
      { name: 'lane workers', run: () => lanes.close() },
      { name: 'deferral counts', run: () => deferrals.close() },
      { name: 'smtp transports', run: () => closeLaneTransports(transports) },
      { name: 'queues', run: () => closeQueues(queues) },
      { name: 'redis', run: async () => void (await producer.quit()) },
      { name: 'database', run: async () => void (await Promise.all([listen.close(), database.close()])) },
    ],
  }
}

/**
 * The system queue's worker: campaign dispatch every second and at each campaign's send time, the
 * nightly cleanup and the daily rollup (cron, in SCHEDULE_TIME_ZONE).
 */
export function startSystem(
  options: Pick<
    DeliveryOptions,
    'database' | 'redisUrl' | 'queuePrefix' | 'logger' | 'metrics' | 'operations' | 'caps' | 'domains'
  >,
  resources: {
    queues: Pick<Queues, typeof SYSTEM_QUEUE | typeof DEAD_LETTER_QUEUE>
    /** The queues' connection (the dead-letter queue's completeness marker). */
    redis: Redis
    pacer: Pick<Pacer, 'wake'>
    tuning: Pick<typeof DELIVERY_TUNING, 'dispatch' | 'system'>
  },
) {
  const { queues, pacer, tuning } = resources
  const logger = options.logger.child({ component: 'dispatcher' })
  const operations = options.operations ?? DEFAULT_OPERATIONS_SETTINGS
  const deadLetterCaps = (options.caps ?? DEFAULT_FAILURE_CAPS).deadLetters
  const deadLetterLog = options.logger.child({ component: 'dead-letters' })
  const pass = () =>
    dispatchDue({
      db: options.database.db,
      onPending: () => pacer.wake(),
      wakeAt: async (campaign, dueInMs) => {
        await queues[SYSTEM_QUEUE].add(
          CAMPAIGN_DUE_JOB,
          { campaignId: campaign.id },
          {
            jobId: `due-${campaign.id}-${Math.round(campaign.sendAtMs)}`,
            delay: Math.max(0, Math.ceil(dueInMs)),
            removeOnComplete: true,
            removeOnFail: { count: 100 },
          },
        )
      },
      logger,
      metrics: options.metrics,
      tuning: tuning.dispatch,
    })
  return startSystemWorker({
    redisUrl: options.redisUrl,
    prefix: options.queuePrefix,
    queue: queues[SYSTEM_QUEUE],
    handlers: {
      [DISPATCH_SCHEDULER_ID]: pass,
      [CAMPAIGN_DUE_JOB]: pass,
      // Restore first, then trim: a restore stays inside the caps, the trim catches what failures added.
      [DEAD_LETTER_RESTORE_SCHEDULER_ID]: async () => {
        const restore = await restoreDeadLetters({
          db: options.database.db,
          queue: queues[DEAD_LETTER_QUEUE],
          redis: resources.redis,
          retentionDays: operations.auditRetentionDays,
          caps: deadLetterCaps,
          clock: { now: () => new Date() },
          logger: deadLetterLog,
        })
        const trim = await trimDeadLetters({ queue: queues[DEAD_LETTER_QUEUE], caps: deadLetterCaps })
        if (trim.byAge + trim.byCount > 0) {
          deadLetterLog.warn({ ...trim, caps: deadLetterCaps }, 'dead letters trimmed to their caps')
        }
        return { restore, trim }
      },
      ...operationsHandlers(operations, {
        db: options.database.db,
        logger: options.logger.child({ component: 'operations' }),
      }),
      ...domainCheckHandlers(options.domains ?? DEFAULT_DOMAIN_CHECK_SETTINGS, {
        db: options.database.db,
        logger: options.logger.child({ component: 'domains' }),
      }),
    },
    schedules: [
      { id: DISPATCH_SCHEDULER_ID, everyMs: tuning.dispatch.everyMs },
      { id: DEAD_LETTER_RESTORE_SCHEDULER_ID, everyMs: tuning.system.deadLetterCheckEveryMs },
      ...operationsSchedules(operations),
      ...domainCheckSchedules(),
    ],
    // A long slice of a big dispatch (or the nightly cleanup) must not hold back a campaign's wake-up.
    concurrency: 3,
    reconcileEveryMs: tuning.system.reconcileEveryMs,
    logger,
  })
}

/** One BullMQ worker per lane, each sending through its lane's own SMTP pool, behind the tenant's bucket. */
function startLanes(
  options: DeliveryOptions,
  resources: {
    queues: Queues
    transports: LaneTransports
    deadlineMs: number
    buckets: TokenBuckets
    plans: PlanCache
    campaigns: CampaignRenderer
    deferrals: DeferralRecorder
    admission: LaneAdmission
    relay: Pick<Relay, 'slotFreed'>
    /** Measures the critical lane's sends; its factor sets the bulk workers' concurrency. */
    governor?: BulkGovernor
  },
): LaneWorkers {
  const { database, logger, metrics } = options
  const store = createDeliveryStore(database.db)
  const returnPathSecret = options.unsubscribe.secrets[0]?.secret
  if (returnPathSecret === undefined)
    throw new Error('UNSUBSCRIBE_SECRET lists no key to sign return paths with')
  // One for every lane: a domain's key is decrypted once per process, whichever lane sends its mail.
  const signer = createSenderSigner({
    load: (input) => findSigningDomain(database.db, input),
    keys: options.dkimEncryptionKeys,
    ...(options.senderSignerTtlMs === undefined ? {} : { ttlMs: options.senderSignerTtlMs }),
  })
  // The gate is the job's own (its tenant's bucket, with its lane slot): the processor gives it per send.
  const sendDepsFor = (lane: Lane): Omit<SendDeps, 'gate'> => ({
    store,
    mailer: createSmtpMailer(resources.transports[lane], {
      deadlineMs: resources.deadlineMs,
      connections: options.smtp.connections[lane],
    }),
    clock: { now: () => new Date() },
    lockMs: options.sendLockMs,
    mailFrom: options.mailFrom,
    returnPath: { bounceDomain: options.bounceDomain, secret: returnPathSecret },
    signer,
    messageIdFor: (id) => messageIdFor(id, options.mailDomain),
    campaigns: resources.campaigns,
    logger: logger.child({ lane }),
  })
  const workers = startLaneWorkers({
    redisUrl: options.redisUrl,
    prefix: options.queuePrefix,
    concurrency: options.concurrency,
    lockMs: options.jobLockMs,
    stalledIntervalMs: options.stalledIntervalMs,
    logger,
    metrics,
    lanes: options.lanes,
    failedRetention: failedJobRetention((options.caps ?? DEFAULT_FAILURE_CAPS).failedJobs),
    deadLetters: createDeadLetters({
      db: database.db,
      queue: resources.queues[DEAD_LETTER_QUEUE],
      logger,
      metrics,
    }),
    processorFor: (lane) => {
      const deps = sendDepsFor(lane)
      const gate = createTenantGate({
        lane,
        buckets: resources.buckets,
        planFor: planSourceFor(lane, { plans: resources.plans, transactional: options.transactionalPlan }),
        ...(lane === 'bulk'
          ? {}
          : {
              slots: {
                admission: resources.admission,
                ttlMs: (options.transactionalLanes ?? DEFAULT_TRANSACTIONAL_LANES).slotTtlMs,
                onFreed: resources.relay.slotFreed,
              },
            }),
      })
      return createSendProcessor({
        lane,
        send: (job, log, gate, attempt) => sendMessage(job, { ...deps, gate, logger: log }, attempt),
        record: (claim, log) => recordAcceptedSend(claim, { store: deps.store, logger: log }),
        gate,
        recordDeferral: (tenantId) => resources.deferrals.record(tenantId, lane),
        ...(lane === 'critical' && resources.governor ? { onSent: resources.governor.recordCritical } : {}),
        logger,
        metrics,
      })
    },
  })
  resources.governor?.onChange((factor) => {
    const bulk = workers.workers.bulk
    if (bulk) bulk.concurrency = governed(options.concurrency.bulk, factor)
  })
  return workers
}
