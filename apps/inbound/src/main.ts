import { LOG_ERROR_SERIALIZERS, loadConfig, stopWhenStdinCloses } from '@fairlane/config'
import { createDatabase, poolerSettings } from '@fairlane/db'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { ListenError } from './http-server'
import { type Inbound, startInbound } from './start-inbound'

/**
 * The inbound server's composition root: the only place that creates its database client and
 * logger and starts its servers (`startInbound` wires them). Nothing starts on import elsewhere.
 */
const config = loadConfig()
stopWhenStdinCloses(config)
const logger = pino({
  level: config.LOG_LEVEL,
  base: { service: 'inbound' },
  serializers: LOG_ERROR_SERIALIZERS,
})
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

const database = createDatabase(config.DATABASE_URL, {
  max: Math.min(config.DATABASE_POOL_MAX, 10),
  applicationName: 'inbound',
  ...poolerSettings(config),
})

let inbound: Inbound
try {
  await database.db.execute(sql`select 1`)
  inbound = await startInbound({
    db: database.db,
    logger,
    host: config.HOST,
    smtpPort: config.INBOUND_SMTP_PORT,
    httpPort: config.INBOUND_HTTP_PORT,
    secrets: config.UNSUBSCRIBE_SECRET.map((key) => key.secret),
    bounceDomain: config.BOUNCE_DOMAIN,
    softBounceLimit: config.SOFT_BOUNCE_LIMIT,
    metricsToken: config.METRICS_TOKEN,
    requireMetricsToken: config.NODE_ENV === 'production',
    limits: { maxClientsPerAddress: config.INBOUND_MAX_CLIENTS_PER_ADDRESS },
  })
} catch (error) {
  console.error(
    error instanceof ListenError
      ? `inbound: ${error.message}`
      : `inbound: failed to start: ${error instanceof Error ? error.message : String(error)}`,
  )
  await database.close()
  process.exit(1)
}

// Scripts wait for this line (and /health) to know the server is up.
console.log(
  `inbound: SMTP ${config.HOST}:${inbound.smtpPort} (return paths of ${config.BOUNCE_DOMAIN} and tenant domains), health and metrics http://${config.HOST}:${inbound.httpPort}`,
)
if (config.METRICS_TOKEN === undefined && config.NODE_ENV !== 'production') {
  logger.warn('/metrics is open to anyone who reaches the port: set METRICS_TOKEN to require a bearer')
}

function shutdown(signal: NodeJS.Signals): void {
  logger.info({ signal }, 'shutting down')
  setTimeout(() => {
    console.error(`inbound: forced exit: shutdown took longer than ${config.SHUTDOWN_FORCE_EXIT_MS} ms`)
    process.exit(1)
  }, config.SHUTDOWN_FORCE_EXIT_MS).unref()
  inbound
    .close()
    .then(() => database.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
}
// once: a second Ctrl-C falls through to the default handler and kills the process at once.
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)
