import { loadConfig, stopWhenStdinCloses } from '@fairlane/config'
import { createDatabase, poolerSettings } from '@fairlane/db'
import {
  createMetricsRegistry,
  createWorkerMetrics,
  registerDepthGauges,
} from '@fairlane/delivery/engine/metrics'
import { registerReceiverMetrics } from '@fairlane/delivery/engine/receivers/receiver-metrics'
import { createReceiverRateSource } from '@fairlane/delivery/engine/receivers/receiver-rate-source'
import { installShutdown } from '@fairlane/delivery/engine/shutdown'
import { deliveryOptionsFromConfig, startDelivery } from '@fairlane/delivery/engine/start-delivery'
import { receiverRatesFrom } from '@fairlane/delivery/shaping/receiver-rates'
import { redisTarget } from '@fairlane/queue'
import { checkDatabase, checkQueueRedis } from './boot-checks'
import { BootError } from './boot-error'
import { createLogger } from './logger'
import { startMetricsServer } from './metrics-server'
import { applyNice } from './priority'

/**
 * The worker process's composition root: the only place that creates its database client, Redis
 * connections, queues, transports and servers (`startDelivery` is its delivery half). Nothing starts
 * on import anywhere else.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  stopWhenStdinCloses(config)
  const logger = createLogger(config.LOG_LEVEL)
  let shuttingDown = false
  let ready = false

  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    applicationName: 'worker',
    ...poolerSettings(config),
  })
  await checkDatabase(database.sql, config.DATABASE_URL)
  await checkQueueRedis(redisTarget(config), config.NODE_ENV, logger)

  const registry = createMetricsRegistry()
  const metrics = createWorkerMetrics(registry)
  // Bound before anything starts delivering, so a taken port stops the boot with nothing to undo.
  const metricsServer = await startMetricsServer({
    host: config.HOST,
    port: config.WORKER_METRICS_PORT,
    registry,
    isShuttingDown: () => shuttingDown,
    isReady: () => ready,
    metricsToken: config.METRICS_TOKEN,
    requireToken: config.NODE_ENV === 'production',
  })
  if (config.METRICS_TOKEN === undefined) {
    logger.warn(
      { production: config.NODE_ENV === 'production' },
      config.NODE_ENV === 'production'
        ? '/metrics refuses every scrape: METRICS_TOKEN is not set'
        : '/metrics is open to anyone who reaches the port: set METRICS_TOKEN to require a bearer',
    )
  }

  // Bulk lower (nice 10), the transactional lanes higher where allowed (worker-tx: WORKER_TX_NICE).
  applyNice(config.WORKER_NICE, logger, { lanes: config.WORKER_LANES })
  const options = deliveryOptionsFromConfig(config, { database, logger, metrics })
  if (options.receivers) {
    // MX mode: the providers' rates (read from receiver_states at scrape time) and every reply's class.
    const receiverMetrics = registerReceiverMetrics(registry, {
      receivers: createReceiverRateSource({
        db: database.db,
        rates: receiverRatesFrom(options.receivers.rules),
      }),
      onError: (gauge, error) => logger.warn({ gauge, err: String(error) }, 'metrics gauge not collected'),
    })
    options.receivers.observe = receiverMetrics.recordReceiverReply
  }
  const delivery = await startDelivery(options)
  registerDepthGauges(registry, delivery.depthSource, {
    topTenants: config.METRICS_TOP_TENANTS,
    onError: (gauge, error) => logger.warn({ gauge, err: String(error) }, 'metrics gauge not collected'),
  })

  installShutdown({
    logger,
    forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS,
    onBegin: () => {
      shuttingDown = true
    },
    steps: () => [...delivery.shutdownSteps(), { name: 'metrics server', run: () => metricsServer.close() }],
  })
  ready = true

  logger.info(
    {
      metrics: `http://${config.HOST}:${metricsServer.port}/metrics`,
      lockMs: config.JOB_LOCK_MS,
      stalledIntervalMs: config.STALLED_INTERVAL_MS,
      sendLockMs: config.SEND_LOCK_MS,
      forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS,
      concurrency: {
        critical: config.CRITICAL_CONCURRENCY,
        default: config.DEFAULT_CONCURRENCY,
        bulk: config.BULK_CONCURRENCY,
      },
      ...delivery.settings,
      scheduleTimeZone: config.SCHEDULE_TIME_ZONE,
      auditRetentionDays: config.AUDIT_RETENTION_DAYS,
      metricsTopTenants: config.METRICS_TOP_TENANTS,
    },
    'worker ready',
  )
}

main().catch((error: unknown) => {
  if (error instanceof BootError) {
    console.error(`worker: ${error.message}`)
  } else {
    console.error('worker: failed to start:', error)
  }
  process.exit(1)
})
