import 'server-only'
import { type Config, loadConfig } from '@fairlane/config'
import { createDatabase } from '@fairlane/db'
import { createProducerConnection, createQueues, type Queues } from '@fairlane/queue'
import type { Redis } from 'ioredis'
import pino from 'pino'
import type { AdminDeps } from './api/admin/deps'
import type { ApiDeps } from './api/v1/deps'
import type { Logger } from './logger'
import { type ApiLimiters, createApiLimiters } from './rate-limits'

/**
 * The web app's composition root: the one place that creates its database client and Redis
 * connection. Built on first use (not on import) because Next.js imports route modules at build
 * time, and kept on globalThis so development hot reloads do not leak pools.
 */
export interface WebContainer {
  config: Config
  database: ReturnType<typeof createDatabase>
  redis: Redis
  logger: Logger
  /** Rate limiters on `redis`, with in-memory insurance for when it is away. */
  limiters: ApiLimiters
  /** BullMQ queues for the admin views, created on first call (the public API never touches them). */
  queues(): Queues
  api: ApiDeps
  admin: AdminDeps
}

const holder = globalThis as typeof globalThis & { fairlaneContainer?: WebContainer }

export function container(): WebContainer {
  holder.fairlaneContainer ??= build()
  return holder.fairlaneContainer
}

function build(): WebContainer {
  const config = loadConfig()
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'web' } })
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    applicationName: 'web',
  })
  const redis = createProducerConnection(config.REDIS_URL, 'web', logger)
  const limiters = createApiLimiters({ redis, keyPrefix: `${config.QUEUE_PREFIX}:rl` })
  let queues: Queues | undefined
  const lazyQueues = () => {
    queues ??= createQueues(redis, config.QUEUE_PREFIX, logger)
    return queues
  }
  const clock = { now: () => new Date() }
  return {
    config,
    database,
    redis,
    logger,
    limiters,
    queues: lazyQueues,
    api: { db: database.db, logger, limiters, clock, lastTouched: new Map() },
    admin: { db: database.db, adminToken: config.ADMIN_TOKEN, queues: lazyQueues, logger, clock },
  }
}
