import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { ParkSettings } from '@fairlane/core'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import type { BucketPlan, TokenBuckets } from '@fairlane/fairness'
import { createWorkerConnection, queuePrefix, type RedisClient, WEBHOOK_QUEUE } from '@fairlane/queue'
import { Queue, Worker } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import type { ShutdownStep } from '../shutdown'
import { createWebhookProcessor } from './webhook-processor'
import { startWebhookRelay } from './webhook-relay'

export interface WebhookSettings {
  /** WEBHOOK_CONCURRENCY: attempts this process runs at once, all endpoints together. */
  concurrency: number
  /** WEBHOOK_ENDPOINT_CONCURRENCY: attempts in flight per endpoint, all processes together. */
  endpointConcurrency: number
  /** WEBHOOK_TENANT_CONCURRENCY: attempts in flight per tenant, all endpoints and processes together. */
  tenantConcurrency: number
  timeoutMs: number
  /** WEBHOOK_SLOW_MS: a 2xx this slow slows its endpoint; absent: half of `timeoutMs`. */
  slowMs?: number
  allowPrivate: boolean
  tenantPlan: BucketPlan
  /** WEBHOOK_RETRY_SCHEDULE; absent: the default (5 s … 10 h). */
  retryScheduleMs?: readonly number[]
  park?: ParkSettings
  /** Relay tuning for tests. */
  pollMs?: number
  batchSize?: number
}

export interface WebhookDeps {
  database: DatabaseHandle
  /** DATABASE_DIRECT_URL: the LISTEN connection. */
  databaseDirectUrl: string
  redisUrl: string
  redisCluster: boolean
  queuePrefix: string
  /** The process's producer connection (queue adds and the buckets' scripts). */
  producer: RedisClient
  buckets: TokenBuckets
  logger: Logger
  metrics: Pick<WorkerMetrics, 'webhookAttempts' | 'webhookClaimed'>
}

export const WEBHOOK_TUNING = { pollMs: 500, batchSize: 200, maxBackoffMs: 5_000 }

/**
 * The webhook lane: its relay (LISTEN + poll), its queue and its own BullMQ worker with its own
 * HTTP agents, so no webhook ever takes a mail lane's worker, connection or socket.
 */
export function startWebhooks(settings: WebhookSettings, deps: WebhookDeps) {
  const logger = deps.logger.child({ component: 'webhooks' })
  const queue = new Queue(WEBHOOK_QUEUE, {
    connection: deps.producer,
    prefix: queuePrefix(deps.queuePrefix, WEBHOOK_QUEUE),
  })
  queue.on('error', (error: Error) => logger.error({ err: error.message }, 'webhook queue error'))
  const listen = createDatabase(deps.databaseDirectUrl, { max: 1, applicationName: 'worker-webhooks-listen' })
  // Keep-alive sockets per process, capped per host at the endpoint cap: at most that many are open.
  const agentOptions = { keepAlive: true, maxSockets: settings.endpointConcurrency, maxFreeSockets: 2 }
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) }
  const relay = startWebhookRelay({
    db: deps.database.db,
    listenSql: listen.sql,
    queue,
    // Twice what this process runs at once: the next attempts are ready when a slot frees.
    maxQueued: 2 * settings.concurrency,
    buckets: deps.buckets,
    tenantPlan: settings.tenantPlan,
    endpointConcurrency: settings.endpointConcurrency,
    tenantConcurrency: settings.tenantConcurrency,
    // Past the attempt's timeout and a wait in a busy queue: an attempt still running keeps its lease.
    leaseMs: 3 * settings.timeoutMs + 30_000,
    batchSize: settings.batchSize ?? WEBHOOK_TUNING.batchSize,
    pollMs: settings.pollMs ?? WEBHOOK_TUNING.pollMs,
    maxBackoffMs: WEBHOOK_TUNING.maxBackoffMs,
    logger,
    metrics: deps.metrics,
  })
  const connection = createWorkerConnection(
    { url: deps.redisUrl, cluster: deps.redisCluster },
    'worker-webhooks',
    logger,
  )
  const processor = createWebhookProcessor({
    db: deps.database.db,
    agents,
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    rules: {
      slowMs: settings.slowMs ?? Math.round(settings.timeoutMs / 2),
      ...(settings.retryScheduleMs ? { retryScheduleMs: settings.retryScheduleMs } : {}),
      ...(settings.park ? { park: settings.park } : {}),
    },
    onSettled: relay.wake,
    logger,
    metrics: deps.metrics,
  })
  const worker = new Worker(WEBHOOK_QUEUE, processor, {
    connection,
    prefix: queuePrefix(deps.queuePrefix, WEBHOOK_QUEUE),
    concurrency: settings.concurrency,
    // An attempt lasts at most its timeout; the lock outlives it so BullMQ never thinks it stalled.
    lockDuration: Math.max(30_000, 2 * settings.timeoutMs),
  })
  worker.on('error', (error) => logger.error({ err: error.message }, 'webhook worker error'))
  worker.on('failed', (job, error) =>
    logger.warn(
      { jobId: job?.id, err: error.message },
      'webhook job failed; its lease will expire and it is tried again',
    ),
  )

  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'webhook relay', run: () => relay.stop() },
    { name: 'webhook worker', run: () => worker.close() },
    {
      name: 'webhook connections',
      run: async () => {
        agents.http.destroy()
        agents.https.destroy()
        await queue.close()
        await connection.quit().catch(() => connection.disconnect())
        await listen.close()
      },
    },
  ]
  return { relay, worker, queue, shutdownSteps }
}

export type Webhooks = ReturnType<typeof startWebhooks>
