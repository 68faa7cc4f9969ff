import type { Config } from '@fairlane/config'
import { databaseDirectUrl, mailDomain } from '@fairlane/config'
import { type KeyEncryptionKey, type Lane, parseRetrySchedule } from '@fairlane/core'
import type { DatabaseHandle } from '@fairlane/db'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import type { BucketPlan } from '@fairlane/fairness'
import type { Logger } from 'pino'
import { DISPATCH_TUNING } from './campaigns/dispatch-due'
import type { DomainCheckSettings } from './domains/domain-checks-jobs'
import { PACER_TUNING } from './fairness/pacer'
import type { WorkerMetrics } from './metrics'
import type { OperationsSettings } from './operations/operations-jobs'
import type { ReceiverOptions } from './receivers/start-receivers'
import type { RelayHooks } from './relay/publish-batch'
import { SCHEDULED_TUNING } from './scheduled/releaser'
import { SCHEDULE_RECONCILE_MS } from './system/system-worker'
import type { WebhookSettings } from './webhooks/start-webhooks'

/**
 * Relay and sweeper tuning. Not environment variables (yet): the defaults suit production, and tests
 * pass their own. relay.pollMs is the fallback when a NOTIFY is missed; the sweeper's queuedForMs is
 * how long a message may sit `queued` with no job before it is published again (well above the
 * relay's worst normal delay, so a healthy relay never races it).
 */
export const DELIVERY_TUNING = {
  /**
   * `tenantRowsPerPass`: at most this many of one tenant's fresh rows per relay pass (fewer when more
   * tenants share the batch). A flooding tenant's rows are mostly parked, one write and one event each;
   * 100 keeps a pass short, so another tenant's row that arrives meanwhile waits at most a short pass.
   */
  relay: { pollMs: 1_000, batchSize: 500, tenantRowsPerPass: 100, maxBackoffMs: 5_000, addTimeoutMs: 10_000 },
  sweeper: { intervalMs: 5_000, queuedForMs: 30_000, batchSize: 500 },
  /**
   * Scheduled sends (`sendAt`): every `everyMs` due rows become `queued` with their outbox row, oldest
   * first, `batchSize` a transaction, `maxBatches` a pass; the relay's fair claim and lane parking pace
   * them from there (`scheduled/releaser.ts`).
   */
  scheduled: SCHEDULED_TUNING,
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

export interface DeliveryOptions {
  database: DatabaseHandle
  /** DATABASE_DIRECT_URL: the LISTEN connections (relay, webhook relay), never through a transaction pooler. */
  databaseDirectUrl: string
  redisUrl: string
  /** REDIS_CLUSTER: `redisUrl` lists the seeds of a Redis Cluster. */
  redisCluster: boolean
  queuePrefix: string
  /** LANE_SHARDS: BullMQ queues per lane (README, "Sharded lanes"); the web app must use the same. */
  laneShards: number
  smtp: { url: string; timeoutMs: number; connections: Record<Lane, number> }
  /**
   * DELIVERY_MODE=mx: mail goes to each recipient domain's own MX hosts, shaped per receiving
   * provider (`receivers/start-receivers.ts`); absent, every lane sends to `smtp.url` (relay mode).
   */
  receivers?: ReceiverOptions
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
  /** `batchSize`: BULK_BATCH_SIZE, messages per bulk job in relay mode (default 1). */
  pacer: {
    highWater: number
    horizonMs: number
    queueMs?: number
    redisTimeoutMs?: number
    batchSize?: number
    /** PACER_QUANTUM: messages per unit of plan weight in a tenant's turn (default 1). */
    quantum?: number
  }
  /** Every tenant's own bucket on each transactional lane (critical, default). */
  transactionalPlan: BucketPlan
  /**
   * TRANSACTIONAL_TENANT_SLOTS, TRANSACTIONAL_SLOT_TTL_MS, TRANSACTIONAL_HORIZON_MS: how much of a
   * transactional lane one tenant may hold, and how far ahead of its turn (`relay/lane-parking.ts`);
   * TX_BATCH_SIZE: how many of a tenant's default-lane messages one job carries under load.
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
    scheduled?: Partial<typeof DELIVERY_TUNING.scheduled>
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
  /**
   * The webhook lane (WEBHOOK_*); it runs in the process that serves the default lane (with the
   * transactional lanes under WORKER_LAYOUT=split). Absent: no webhook lane in this process.
   */
  webhooks?: WebhookSettings
}

export interface TransactionalLaneSettings {
  slots: number
  slotTtlMs: number
  horizonMs: number
  /**
   * TX_BATCH_SIZE: a tenant's default-lane rows in one relay pass go in batch jobs of up to this many
   * (1: one job per message); absent, 1. Each message holds its own slot, so a batch is also at most
   * the tenant's free `slots`.
   */
  batchSize?: number
}

/** The schema's defaults, for callers (tests) that build options without a config. */
export const DEFAULT_TRANSACTIONAL_LANES: TransactionalLaneSettings = {
  slots: 10,
  slotTtlMs: 30_000,
  horizonMs: 1_000,
  batchSize: 20,
}

export interface FailureCaps {
  failedJobs: { maxCount: number; maxAgeHours: number }
  deadLetters: { maxCount: number; maxAgeDays: number }
}

/** The schema's defaults, for callers (tests) that build options without a config. */
export const DEFAULT_FAILURE_CAPS: FailureCaps = {
  failedJobs: { maxCount: 1_000, maxAgeHours: 24 },
  deadLetters: { maxCount: 10_000, maxAgeDays: 30 },
}

export function deliveryOptionsFromConfig(
  config: Config,
  deps: Pick<DeliveryOptions, 'database' | 'logger' | 'metrics'>,
): DeliveryOptions {
  return {
    ...deps,
    databaseDirectUrl: databaseDirectUrl(config),
    redisUrl: config.REDIS_URL,
    redisCluster: config.REDIS_CLUSTER,
    queuePrefix: config.QUEUE_PREFIX,
    laneShards: config.LANE_SHARDS,
    ...(config.DELIVERY_MODE === 'mx' ? { receivers: receiverOptionsFromConfig(config) } : {}),
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
      batchSize: config.BULK_BATCH_SIZE,
      quantum: config.PACER_QUANTUM,
      redisTimeoutMs: config.PACER_REDIS_TIMEOUT_MS,
    },
    transactionalPlan: { ratePerSec: config.TRANSACTIONAL_RATE_PER_SEC, burst: config.TRANSACTIONAL_BURST },
    bulkGovernorTargetMs: config.BULK_GOVERNOR_TARGET_MS,
    transactionalLanes: {
      slots: config.TRANSACTIONAL_TENANT_SLOTS,
      slotTtlMs: config.TRANSACTIONAL_SLOT_TTL_MS,
      horizonMs: config.TRANSACTIONAL_HORIZON_MS,
      batchSize: config.TX_BATCH_SIZE,
    },
    operations: {
      timeZone: config.SCHEDULE_TIME_ZONE,
      auditRetentionDays: config.AUDIT_RETENTION_DAYS,
      bodyRetention: {
        days: config.MESSAGE_BODY_RETENTION_DAYS,
        criticalDays: config.MESSAGE_BODY_RETENTION_DAYS_CRITICAL,
      },
      eventRetentionDays: config.EVENT_RETENTION_DAYS,
      messageRetentionDays: config.MESSAGE_RETENTION_DAYS,
    },
    domains: { returnPathHost: config.RETURN_PATH_HOST, dnsServers: config.DNS_SERVERS },
    webhooks: webhookSettingsFromConfig(config),
    lanes: config.WORKER_LANES,
    caps: {
      failedJobs: { maxCount: config.FAILED_JOBS_MAX_COUNT, maxAgeHours: config.FAILED_JOBS_MAX_AGE_HOURS },
      deadLetters: { maxCount: config.DEAD_LETTER_MAX_COUNT, maxAgeDays: config.DEAD_LETTER_MAX_AGE_DAYS },
    },
  }
}

/** MX mode's settings; the rules file is read (and refused, naming what is wrong) at boot. */
export function receiverOptionsFromConfig(config: Config): ReceiverOptions {
  return {
    rules: loadReceiverRules(config.RECEIVER_RULES),
    dnsServers: config.DNS_SERVERS,
    port: config.MX_PORT,
    heloName: config.SMTP_HELO_NAME,
    tls: config.MX_TLS,
    allowPrivate: config.MX_ALLOW_PRIVATE,
    egressAddresses: config.EGRESS_ADDRESSES,
    egressPools: config.EGRESS_POOLS,
    maxAgeMs: config.DELIVERY_MAX_AGE_HOURS * 3_600_000,
    timeoutMs: config.SMTP_TIMEOUT_MS,
  }
}

function webhookSettingsFromConfig(config: Config): WebhookSettings {
  const schedule = config.WEBHOOK_RETRY_SCHEDULE
    ? parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE)
    : undefined
  // The env schema's pattern admits only what this parser reads.
  if (typeof schedule === 'string') throw new Error(`WEBHOOK_RETRY_SCHEDULE: ${schedule}`)
  return {
    concurrency: config.WEBHOOK_CONCURRENCY,
    endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    tenantConcurrency: config.WEBHOOK_TENANT_CONCURRENCY,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    ...(config.WEBHOOK_SLOW_MS !== undefined ? { slowMs: config.WEBHOOK_SLOW_MS } : {}),
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    tenantPlan: { ratePerSec: config.WEBHOOK_TENANT_RATE_PER_SEC, burst: config.WEBHOOK_TENANT_BURST },
    ...(schedule ? { retryScheduleMs: schedule } : {}),
  }
}

/** The tuning a delivery runs with: each part's defaults, overridden field by field by the caller's. */
export function resolveTuning(tuning: DeliveryOptions['tuning']): typeof DELIVERY_TUNING {
  return {
    relay: { ...DELIVERY_TUNING.relay, ...tuning?.relay },
    sweeper: { ...DELIVERY_TUNING.sweeper, ...tuning?.sweeper },
    scheduled: { ...DELIVERY_TUNING.scheduled, ...tuning?.scheduled },
    pacer: { ...DELIVERY_TUNING.pacer, ...tuning?.pacer },
    dispatch: { ...DELIVERY_TUNING.dispatch, ...tuning?.dispatch },
    plans: { ...DELIVERY_TUNING.plans, ...tuning?.plans },
    system: { ...DELIVERY_TUNING.system, ...tuning?.system },
  }
}
