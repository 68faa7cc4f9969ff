import type { Lane } from '@fairlane/core'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { closeQueues, createProducerConnection, createQueues, type Queues } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import pino, { type Logger } from 'pino'
import { Registry } from 'prom-client'
import { createWorkerMetrics, registerDepthGauges, type WorkerMetrics } from '../engine/metrics'
import { type DeliveryOptions, startDelivery } from '../engine/start-delivery'

/** Signs the unsubscribe links of campaign mail sent by test pipelines. */
export const TEST_SESSION_SECRET = 'test-session-secret-0123456789abcdef0123456789'
export const TEST_UNSUBSCRIBE_SECRETS = [
  { kid: 1, secret: 'test-unsubscribe-secret-0123456789abcdef0123' },
] as const
/** Encrypts the DKIM keys test domains are given (`seedVerifiedDomain`). */
export const TEST_DKIM_ENCRYPTION_KEYS = [{ kid: 't1', key: Buffer.alloc(32, 7) }]
export const TEST_BOUNCE_DOMAIN = 'bounces.fairlane.test'

/** What `setupTestEnvironment` fills in. */
export interface TestEnv {
  databaseUrl: string
  /** The LISTEN connections' URL (PostgreSQL itself when `databaseUrl` goes through PgBouncer). */
  databaseDirectUrl?: string
  /** False through PgBouncer (DATABASE_PREPARE=false). */
  databasePrepare?: boolean
  redisUrl: string
  redisCluster: boolean
  queuePrefix: string
}

/** Silent unless a test passes a level (e.g. from TEST_LOG_LEVEL while debugging). */
export function testLogger(level = 'silent'): Logger {
  return pino({ level })
}

export interface TestPipeline {
  database: DatabaseHandle
  metrics: WorkerMetrics
  registry: Registry
  /** Runs the production shutdown steps (relay, sweeper, workers, transports, queues, Redis, database). */
  stop(): Promise<void>
}

/**
 * The worker's delivery side in this process, wired by the same `startDelivery` as main.ts, with
 * timings shortened so recovery paths run in seconds.
 */
export async function startTestPipeline(
  env: TestEnv,
  sink: MailSink,
  overrides: Partial<DeliveryOptions> = {},
): Promise<TestPipeline> {
  const database = createDatabase(env.databaseUrl, {
    max: 20,
    applicationName: 'test-worker',
    prepare: env.databasePrepare ?? true,
  })
  const registry = new Registry()
  const metrics = createWorkerMetrics(registry)
  const delivery = await startDelivery({
    database,
    databaseDirectUrl: env.databaseDirectUrl ?? env.databaseUrl,
    redisUrl: env.redisUrl,
    redisCluster: env.redisCluster,
    queuePrefix: env.queuePrefix,
    laneShards: 1,
    smtp: {
      url: `smtp://127.0.0.1:${sink.smtpPort}`,
      timeoutMs: 2_000,
      connections: { critical: 4, default: 2, bulk: 2 },
    },
    concurrency: { critical: 10, default: 5, bulk: 5 },
    jobLockMs: 5_000,
    stalledIntervalMs: 2_000,
    sendLockMs: 8_000,
    forceExitMs: 10_000,
    mailFrom: 'mail@fairlane.test',
    mailDomain: 'fairlane.test',
    appUrl: 'http://127.0.0.1:3999',
    unsubscribe: { secrets: TEST_UNSUBSCRIBE_SECRETS, sessionSecret: TEST_SESSION_SECRET },
    bounceDomain: TEST_BOUNCE_DOMAIN,
    dkimEncryptionKeys: TEST_DKIM_ENCRYPTION_KEYS,
    pacer: { highWater: 100, horizonMs: 1_000 },
    transactionalPlan: { ratePerSec: 1_000, burst: 1_000 },
    logger: testLogger(),
    metrics,
    tuning: {
      relay: { pollMs: 200, maxBackoffMs: 500, addTimeoutMs: 2_000 },
      sweeper: { intervalMs: 300, queuedForMs: 1_500 },
    },
    ...overrides,
  })
  registerDepthGauges(registry, delivery.depthSource, { topTenants: 10 })
  let stopping: Promise<void> | undefined
  return {
    database,
    metrics,
    registry,
    stop() {
      stopping ??= (async () => {
        for (const step of delivery.shutdownSteps()) await step.run()
      })()
      return stopping
    },
  }
}

/**
 * Queues on a connection of the test's own, for looking into Redis (dead letters, job counts);
 * `laneShards` as the pipeline under test runs (LANE_SHARDS, default 1).
 */
export function inspectQueues(
  env: Pick<TestEnv, 'redisUrl' | 'redisCluster' | 'queuePrefix'>,
  laneShards = 1,
) {
  const connection = createProducerConnection(
    { url: env.redisUrl, cluster: env.redisCluster },
    'test-inspect',
    testLogger(),
  )
  const queues: Queues = createQueues(connection, env.queuePrefix, testLogger(), laneShards)
  return {
    queues,
    /** The lane's queue when it has one shard (the default layout); a sharded test asks `queues.lanes`. */
    lane(lane: Lane): Queue {
      const [only, ...more] = queues.lanes.shardsOf(lane)
      if (!only || more.length > 0)
        throw new Error(`lane ${lane} has ${more.length + 1} shards; ask queues.lanes`)
      return only
    },
    async close() {
      await closeQueues(queues)
      await connection.quit()
    },
  }
}
