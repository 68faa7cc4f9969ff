import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { LOG_ERROR_SERIALIZERS, loadConfig, stopWhenStdinCloses } from '@fairlane/config'
import { createTenantPlanCache } from '@fairlane/core/accept'
import { createDatabase, poolerSettings } from '@fairlane/db'
import { findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import { acceptPlanOf, createAcceptBuckets, createProducerConnection, redisTarget } from '@fairlane/queue'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { ListenError } from './http-server'
import { type Submission, startSubmission } from './start-submission'

/**
 * The submission server's composition root: the only place that creates its database client, Redis
 * connection and logger and starts its servers (`startSubmission` wires them).
 */
const config = loadConfig()
stopWhenStdinCloses(config)
const logger = pino({
  level: config.LOG_LEVEL,
  base: { service: 'submission' },
  serializers: LOG_ERROR_SERIALIZERS,
})
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

const certPath = config.SUBMISSION_TLS_CERT
const keyPath = config.SUBMISSION_TLS_KEY
if (certPath === undefined && !config.SUBMISSION_ALLOW_PLAINTEXT_AUTH) {
  console.error(
    'submission: set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY (AUTH needs TLS), or SUBMISSION_ALLOW_PLAINTEXT_AUTH=true in development',
  )
  process.exit(1)
}
let tls: { key: Buffer; cert: Buffer } | undefined
try {
  tls = certPath && keyPath ? { cert: readFileSync(certPath), key: readFileSync(keyPath) } : undefined
} catch (error) {
  console.error(
    `submission: cannot read SUBMISSION_TLS_CERT / SUBMISSION_TLS_KEY: ${(error as Error).message}`,
  )
  process.exit(1)
}

const database = createDatabase(config.DATABASE_URL, {
  max: Math.min(config.DATABASE_POOL_MAX, 10),
  applicationName: 'submission',
  ...poolerSettings(config),
})
const redis = createProducerConnection(redisTarget(config), 'submission', logger)

let submission: Submission
try {
  await database.db.execute(sql`select 1`)
  submission = await startSubmission({
    db: database.db,
    logger,
    host: config.HOST,
    hostName: config.SUBMISSION_HOST ?? hostname(),
    port: config.SUBMISSION_PORT,
    tlsPort: config.SUBMISSION_TLS_PORT,
    httpPort: config.SUBMISSION_HTTP_PORT,
    tls,
    allowPlaintextAuth: config.SUBMISSION_ALLOW_PLAINTEXT_AUTH,
    planAdmission: {
      plan: acceptPlanOf(config),
      buckets: createAcceptBuckets({ redis, keyPrefix: `${config.QUEUE_PREFIX}:rl` }),
      // Each tenant's own transactional plan and quotas, as the web process reads them (5 s cache).
      tenantPlans: createTenantPlanCache({
        load: (tenantId) => findTenantAdmissionPlan(database.db, { tenantId }),
      }),
    },
    authThrottle: {
      maxFailures: config.SUBMISSION_AUTH_FAILURES_PER_ADDRESS,
      windowMs: config.SUBMISSION_AUTH_LOCKOUT_MS,
    },
    metricsToken: config.METRICS_TOKEN,
    requireMetricsToken: config.NODE_ENV === 'production',
    limits: {
      maxMessageBytes: config.MAX_MESSAGE_BYTES,
      maxClientsPerAddress: config.SUBMISSION_MAX_CLIENTS_PER_ADDRESS,
    },
  })
} catch (error) {
  console.error(
    error instanceof ListenError
      ? `submission: ${error.message}`
      : `submission: failed to start: ${error instanceof Error ? error.message : String(error)}`,
  )
  await database.close()
  redis.disconnect()
  process.exit(1)
}

// Scripts wait for this line (and /health) to know the server is up.
console.log(
  `submission: SMTP ${config.HOST}:${submission.port} (STARTTLS${tls ? '' : ' off'})${
    submission.tlsPort === undefined ? '' : `, implicit TLS ${config.HOST}:${submission.tlsPort}`
  }, health and metrics http://${config.HOST}:${submission.httpPort}`,
)

function shutdown(signal: NodeJS.Signals): void {
  logger.info({ signal }, 'shutting down')
  setTimeout(() => {
    console.error(`submission: forced exit: shutdown took longer than ${config.SHUTDOWN_FORCE_EXIT_MS} ms`)
    process.exit(1)
  }, config.SHUTDOWN_FORCE_EXIT_MS).unref()
  submission
    .close()
    .then(() => database.close())
    .then(() => redis.quit().catch(() => redis.disconnect()))
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
