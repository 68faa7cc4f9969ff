import type { Config } from '@fairlane/config'
import { mailDomain } from '@fairlane/config'
import type { Lane } from '@fairlane/core'
import { type SendDeps, sendMessage } from '@fairlane/core/delivery'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createDeliveryStore } from '@fairlane/db/queries/delivery'
import { closeLaneTransports, createLaneTransports, type LaneTransports, messageIdFor } from '@fairlane/mail'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  DEAD_LETTER_QUEUE,
  type Queues,
} from '@fairlane/queue'
import type { Logger } from 'pino'
import { createDeadLetters } from './lanes/dead-letters'
import { type LaneWorkers, startLaneWorkers } from './lanes/lane-workers'
import { createSendProcessor } from './lanes/send-processor'
import { createSmtpMailer, sendDeadlineMs } from './lanes/smtp-mailer'
import type { WorkerMetrics } from './metrics'
import type { RelayHooks } from './relay/publish-batch'
import { startRelay } from './relay/relay'
import type { ShutdownStep } from './shutdown'
import { startSweeper } from './sweeper/sweeper'

/**
 * Relay and sweeper tuning. Not environment variables (yet): the defaults suit production, and tests
 * pass their own. relay.pollMs is the fallback when a NOTIFY is missed; the sweeper's queuedForMs is
 * how long a message may sit `queued` with no job before it is published again (well above the
 * relay's worst normal delay, so a healthy relay never races it).
 */
export const DELIVERY_TUNING = {
  relay: { pollMs: 1_000, batchSize: 500, maxBackoffMs: 5_000, addTimeoutMs: 10_000 },
  sweeper: { intervalMs: 5_000, queuedForMs: 30_000, batchSize: 500 },
}

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
  logger: Logger
  metrics: WorkerMetrics
  tuning?: {
    relay?: Partial<typeof DELIVERY_TUNING.relay>
    sweeper?: Partial<typeof DELIVERY_TUNING.sweeper>
  }
  relayHooks?: RelayHooks
  /** Defaults to every lane. */
  lanes?: readonly Lane[]
}

export interface Delivery {
  /** What the delivery side runs with, for the boot log. */
  settings: { sendDeadlineMs: number } & typeof DELIVERY_TUNING
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
  }
}

/** Wires the delivery side: relay, sweeper and lane workers, with the connections each needs. */
export function startDelivery(options: DeliveryOptions): Delivery {
  const { database, logger, metrics } = options
  const tuning = {
    relay: { ...DELIVERY_TUNING.relay, ...options.tuning?.relay },
    sweeper: { ...DELIVERY_TUNING.sweeper, ...options.tuning?.sweeper },
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
  const relay = startRelay({
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
  const lanes = startLanes(options, { queues, transports, deadlineMs })

  return {
    settings: { sendDeadlineMs: deadlineMs, ...tuning },
    shutdownSteps: () => [
      {
        name: 'relay and sweeper',
        run: async () => void (await Promise.all([relay.stop(), sweeper.stop()])),
      },
      { name: 'lane workers', run: () => lanes.close() },
      { name: 'smtp transports', run: () => closeLaneTransports(transports) },
      { name: 'queues', run: () => closeQueues(queues) },
      { name: 'redis', run: async () => void (await producer.quit()) },
      { name: 'database', run: async () => void (await Promise.all([listen.close(), database.close()])) },
    ],
  }
}

/** One BullMQ worker per lane, each sending through its lane's own SMTP pool. */
function startLanes(
  options: DeliveryOptions,
  resources: { queues: Queues; transports: LaneTransports; deadlineMs: number },
): LaneWorkers {
  const { database, logger, metrics } = options
  const store = createDeliveryStore(database.db)
  const sendDepsFor = (lane: Lane): SendDeps => ({
    store,
    mailer: createSmtpMailer(resources.transports[lane], { deadlineMs: resources.deadlineMs }),
    clock: { now: () => new Date() },
    lockMs: options.sendLockMs,
    mailFrom: options.mailFrom,
    messageIdFor: (id) => messageIdFor(id, options.mailDomain),
    logger: logger.child({ lane }),
  })
  return startLaneWorkers({
    redisUrl: options.redisUrl,
    prefix: options.queuePrefix,
    concurrency: options.concurrency,
    lockMs: options.jobLockMs,
    stalledIntervalMs: options.stalledIntervalMs,
    logger,
    metrics,
    lanes: options.lanes,
    deadLetters: createDeadLetters({
      db: database.db,
      queue: resources.queues[DEAD_LETTER_QUEUE],
      logger,
      metrics,
    }),
    processorFor: (lane) => {
      const deps = sendDepsFor(lane)
      return createSendProcessor({ lane, send: (job) => sendMessage(job, deps), logger, metrics })
    },
  })
}
