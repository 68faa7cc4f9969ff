import { loadConfig } from '@fairlane/config'
import { createDatabase } from '@fairlane/db'
import { closeLaneTransports, createLaneTransports } from '@fairlane/mail'
import { closeQueues, createQueues, createWorkerConnection } from '@fairlane/queue'
import { checkDatabase, checkQueueRedis } from './boot-checks'
import { BootError } from './boot-error'
import { createLogger } from './logger'
import { createMetricsRegistry } from './metrics'
import { startMetricsServer } from './metrics-server'
import { installShutdown } from './shutdown'

/**
 * The worker process's composition root: the only place that creates its database client, Redis
 * connections, queues, transports and servers. Nothing starts on import anywhere else.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  const logger = createLogger(config.LOG_LEVEL)
  let shuttingDown = false

  process.on('unhandledRejection', (reason) => logger.error({ err: String(reason) }, 'unhandled rejection'))

  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    applicationName: 'worker',
  })
  await checkDatabase(database.sql, config.DATABASE_URL)
  await checkQueueRedis(config.REDIS_URL, config.NODE_ENV, logger)

  const redis = createWorkerConnection(config.REDIS_URL, 'worker', logger)
  const queues = createQueues(redis, config.QUEUE_PREFIX, logger)
  const transports = createLaneTransports({
    smtpUrl: config.SMTP_URL,
    timeoutMs: config.SMTP_TIMEOUT_MS,
    connections: {
      critical: config.CRITICAL_SMTP_CONNECTIONS,
      default: config.DEFAULT_SMTP_CONNECTIONS,
      bulk: config.BULK_SMTP_CONNECTIONS,
    },
  })
  const registry = createMetricsRegistry()
  const metricsServer = await startMetricsServer({
    host: config.HOST,
    port: config.WORKER_METRICS_PORT,
    registry,
    isShuttingDown: () => shuttingDown,
  })

  installShutdown({
    logger,
    forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS,
    onBegin: () => {
      shuttingDown = true
    },
    steps: () => [
      { name: 'queues', run: () => closeQueues(queues) },
      { name: 'smtp transports', run: () => closeLaneTransports(transports) },
      { name: 'database', run: () => database.close() },
      { name: 'redis', run: async () => void (await redis.quit()) },
      { name: 'metrics server', run: () => metricsServer.close() },
    ],
  })

  logger.info(
    {
      metrics: `http://${config.HOST}:${metricsServer.port}/metrics`,
      lockMs: config.JOB_LOCK_MS,
      stalledIntervalMs: config.STALLED_INTERVAL_MS,
      forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS,
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
