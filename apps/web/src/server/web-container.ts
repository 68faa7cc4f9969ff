import { type Config, LOG_ERROR_SERIALIZERS } from '@fairlane/config'
import { createDatabase } from '@fairlane/db'
import { closeQueues, createProducerConnection, createQueues, type Queues } from '@fairlane/queue'
import type { Redis } from 'ioredis'
import pino from 'pino'
import type { AdminDeps } from './api/admin/deps'
import type { ApiDeps } from './api/v1/deps'
import type { SessionReader } from './auth/admin-access'
import { createApiKeyCache } from './auth/api-key-cache'
import { type AuthThrottle, createAuthThrottle, DEFAULT_AUTH_THROTTLE } from './auth/auth-throttle'
import { type Auth, createAuth } from './auth/better-auth'
import type { Logger } from './logger'
import { createWebMetrics, type WebMetrics } from './metrics'
import { type ApiLimiters, createApiLimiters, rateLimitSettings } from './rate-limits'

/**
 * What the HTTP API needs: the database client, the Redis connection, the limiters and the handlers'
 * dependencies. Free of `server-only` and of Next.js, so the web process's own entry (`main.ts`,
 * plain Node) builds one at boot for its fast path; Next.js code gets it, plus what only pages need,
 * through `container()` (container.ts).
 */
export interface ApiContainer {
  config: Config
  database: ReturnType<typeof createDatabase>
  redis: Redis
  logger: Logger
  /** Rate limiters on `redis`, with in-memory insurance for when it is away. */
  limiters: ApiLimiters
  /** Sign-in and sign-up throttling, shared by every better-auth instance of the process. */
  authThrottle: AuthThrottle
  /** BullMQ queues for the admin views, created on first call (the public API never touches them). */
  queues(): Queues
  /** This process's Prometheus registry and HTTP request metrics. */
  metrics: WebMetrics
  api: ApiDeps
  admin: AdminDeps
  /** Closes the queues (if made), the database pool and the Redis connection. */
  close(): Promise<void>
}

export function buildApiContainer(config: Config, options: { applicationName?: string } = {}): ApiContainer {
  const logger = pino({
    level: config.LOG_LEVEL,
    base: { service: 'web' },
    serializers: LOG_ERROR_SERIALIZERS,
  })
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    applicationName: options.applicationName ?? 'web',
  })
  const redis = createProducerConnection(config.REDIS_URL, 'web', logger)
  const limiters = createApiLimiters({
    redis,
    keyPrefix: `${config.QUEUE_PREFIX}:rl`,
    settings: rateLimitSettings(config),
  })
  const authThrottle = createAuthThrottle({
    redis,
    keyPrefix: `${config.QUEUE_PREFIX}:rl`,
    logger,
    policy: {
      ...DEFAULT_AUTH_THROTTLE,
      signUpsPerClient: { points: config.SIGN_UP_LIMIT_PER_HOUR, windowSec: 60 * 60 },
    },
  })
  let queues: Queues | undefined
  const lazyQueues = () => {
    queues ??= createQueues(redis, config.QUEUE_PREFIX, logger)
    return queues
  }
  const clock = { now: () => new Date() }
  const metrics = createWebMetrics()
  // Only the admin API reads sessions here, and only for calls without a bearer token, so its
  // better-auth instance is made on the first such call.
  let sessionAuth: Auth | undefined
  const readSession = sessionReader(() => {
    sessionAuth ??= createAuth({
      db: database.db,
      secret: config.SESSION_SECRET,
      baseURL: config.APP_URL,
      nextCookies: false,
      throttle: authThrottle,
    })
    return sessionAuth
  })
  return {
    config,
    database,
    redis,
    logger,
    limiters,
    authThrottle,
    queues: lazyQueues,
    metrics,
    api: {
      db: database.db,
      logger,
      limiters,
      clock,
      lastTouched: new Map(),
      // Key rows reused for API_KEY_CACHE_TTL_MS (5 s): one PostgreSQL round trip less per API call.
      keyCache: createApiKeyCache(),
    },
    admin: {
      db: database.db,
      adminToken: config.ADMIN_TOKEN,
      readSession,
      appOrigin: new URL(config.APP_URL).origin,
      queues: lazyQueues,
      redis,
      queuePrefix: config.QUEUE_PREFIX,
      metrics: metrics.registry,
      metricsToken: config.METRICS_TOKEN,
      logger,
      clock,
    },
    async close() {
      if (queues) await closeQueues(queues)
      await database.close()
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** The signed-in user of a request, through better-auth (signed cookie, then the session row). */
export function sessionReader(auth: () => Auth): SessionReader {
  return async (headers) => {
    const found = await auth().api.getSession({ headers })
    if (!found) return null
    return {
      userId: found.user.id,
      email: found.user.email,
      isPlatformAdmin: found.user.isPlatformAdmin === true,
    }
  }
}

/**
 * Next.js's container (container.ts) lives on globalThis so `next dev` hot reloads do not leak pools,
 * and so the web entry can close it at shutdown without importing Next.js code.
 */
const slot = globalThis as typeof globalThis & { fairlaneContainer?: ApiContainer }

export function keepNextJsContainer<T extends ApiContainer>(build: () => T): T {
  slot.fairlaneContainer ??= build()
  return slot.fairlaneContainer as T
}

/** The container Next.js's code built for itself, if it built one (pages, server actions, auth). */
export function nextJsContainer(): ApiContainer | undefined {
  return slot.fairlaneContainer
}
