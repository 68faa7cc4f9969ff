import { type Config, LOG_ERROR_SERIALIZERS } from '@fairlane/config'
import { planCatalog, trackingKey } from '@fairlane/core'
import { createTenantPlanCache, DEFAULT_BLOCKED_EXTENSIONS } from '@fairlane/core/accept'
import { createDatabase, poolerSettings } from '@fairlane/db'
import { createTrackingStore } from '@fairlane/db/queries/tracking'
import { findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import { createDnsLookup, createHostAddressLookup } from '@fairlane/mail/dns'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  type Queues,
  type RedisClient,
  redisTarget,
} from '@fairlane/queue'
import { isbot } from 'isbot'
import pino from 'pino'
import { acceptPlanOf, createAcceptBuckets } from './accept-buckets'
import { type AccountMailer, createAccountMailer } from './accounts/account-mail'
import type { AdminDeps } from './api/admin/deps'
import { adminProvisioning } from './api/admin/provisioning-deps'
import type { ApiDeps } from './api/v1/deps'
import { createMessageRenderer } from './api/v1/message-renderer'
import type { SessionReader } from './auth/admin-access'
import { createApiKeyCache } from './auth/api-key-cache'
import { type AuthThrottle, createAuthThrottle, DEFAULT_AUTH_THROTTLE } from './auth/auth-throttle'
import { type Auth, createAuth } from './auth/better-auth'
import type { Logger } from './logger'
import { createWebMetrics, type WebMetrics } from './metrics'
import { type ApiLimiters, createApiLimiters, rateLimitSettings } from './rate-limits'
import { tenantLimitsOf } from './tenant-limits'
import type { TrackingRouteDeps } from './tracking/tracking-routes'

/**
 * The web process's one composition root: the database pool, the Redis connection, the limiters,
 * better-auth and the handlers' dependencies. The web entry (`main.ts`, plain Node) builds it once at
 * boot and registers it on globalThis (`registerWebContainer`); Next.js's pages and server actions,
 * compiled into bundles of their own, find that same object through `container()` (container.ts)
 * instead of building a second pool, Redis client and auth instance. Free of `server-only` and of
 * Next.js, so the entry can import it.
 */
export interface WebContainer {
  config: Config
  database: ReturnType<typeof createDatabase>
  redis: RedisClient
  logger: Logger
  /** Rate limiters on `redis`, with in-memory insurance for when it is away. */
  limiters: ApiLimiters
  /** Sign-in and sign-up throttling, run by `auth`'s hooks whichever way a sign-in arrives. */
  authThrottle: AuthThrottle
  /** better-auth: `/api/auth/*` (the route table), sessions for pages, actions and the admin API. */
  auth: Auth
  /** BullMQ queues for the admin views, created on first call (the public API never touches them). */
  queues(): Queues
  /** This process's Prometheus registry and HTTP request metrics. */
  metrics: WebMetrics
  api: ApiDeps
  /** Fairlane's own account mail (verification, reset, invitations): the platform tenant's messages. */
  accountMailer: AccountMailer
  admin: AdminDeps
  /** `/t/o/:token` and `/t/c/:token`: the keys (from UNSUBSCRIBE_SECRET, as the worker's) and the store. */
  tracking: TrackingRouteDeps
  /** Closes the queues (if made), the database pool and the Redis connection. */
  close(): Promise<void>
}

export function buildWebContainer(config: Config): WebContainer {
  const logger = pino({
    level: config.LOG_LEVEL,
    base: { service: 'web' },
    serializers: LOG_ERROR_SERIALIZERS,
  })
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    applicationName: 'web',
    ...poolerSettings(config),
  })
  const redis = createProducerConnection(redisTarget(config), 'web', logger)
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
    queues ??= createQueues(redis, config.QUEUE_PREFIX, logger, config.LANE_SHARDS)
    return queues
  }
  const clock = { now: () => new Date() }
  const metrics = createWebMetrics()
  const api: ApiDeps = {
    db: database.db,
    logger,
    limiters,
    tenantLimits: tenantLimitsOf(config),
    clock,
    appUrl: config.APP_URL,
    lastTouched: new Map(),
    planAdmission: {
      plan: acceptPlanOf(config),
      buckets: createAcceptBuckets({ redis, keyPrefix: `${config.QUEUE_PREFIX}:rl` }),
      // Each tenant's own transactional plan and quotas, read once per TENANT_PLAN_TTL_MS (5 s): for the
      // ways in that do not read the tenant with an API key (the API's key row carries the plan).
      tenantPlans: createTenantPlanCache({
        load: (tenantId) => findTenantAdmissionPlan(database.db, { tenantId }),
      }),
    },
    attachmentRules: {
      maxMessageBytes: config.MAX_MESSAGE_BYTES,
      blockedExtensions: config.ATTACHMENT_BLOCKED_EXTENSIONS ?? DEFAULT_BLOCKED_EXTENSIONS,
    },
    // Key rows reused for API_KEY_CACHE_TTL_MS (5 s): one PostgreSQL round trip less per API call.
    keyCache: createApiKeyCache(),
    // Tenant names for built-in mail, cached per process (TENANT_NAME_TTL_MS).
    renderer: createMessageRenderer(database.db),
    domains: {
      dns: createDnsLookup({ servers: config.DNS_SERVERS }),
      settings: { returnPathHost: config.RETURN_PATH_HOST },
      encryptionKeys: config.DKIM_ENCRYPTION_KEY,
    },
    webhooks: {
      hosts: createHostAddressLookup({ servers: config.DNS_SERVERS }),
      settings: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    },
  }
  const accountMailer = createAccountMailer(api)
  // One instance for every way in. Its nextCookies plugin acts only inside a Next.js server action
  // (it sets the cookie through next/headers); called by the route table's handler or the admin API,
  // outside any Next.js request, it steps aside.
  const auth = createAuth({
    db: database.db,
    secret: config.SESSION_SECRET,
    baseURL: config.APP_URL,
    throttle: authThrottle,
    accountMail: { mailer: accountMailer, signupMode: config.SIGNUP_MODE, logger },
  })
  return {
    config,
    database,
    redis,
    logger,
    limiters,
    authThrottle,
    auth,
    queues: lazyQueues,
    metrics,
    api,
    accountMailer,
    tracking: {
      key: trackingKey(config.UNSUBSCRIBE_SECRET),
      store: createTrackingStore(database.db),
      clock,
      isBotUserAgent: isbot,
      scannerWindowMs: config.TRACKING_SCANNER_WINDOW_MS,
      repeatWindowMs: config.TRACKING_REPEAT_WINDOW_MS,
      logger,
    },
    admin: {
      db: database.db,
      adminToken: config.ADMIN_TOKEN,
      egressPools: Object.keys(config.EGRESS_POOLS),
      plans: planCatalog(config.PLANS ?? config.PLANS_FILE),
      provisioning: adminProvisioning(api, config.SESSION_SECRET),
      readSession: sessionReader(() => auth),
      appOrigin: new URL(config.APP_URL).origin,
      queues: lazyQueues,
      redis,
      queuePrefix: config.QUEUE_PREFIX,
      metrics: metrics.registry,
      metricsToken: config.METRICS_TOKEN,
      receiverRulesPath: config.RECEIVER_RULES,
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
 * Where the process's container is registered: a global symbol, so the entry (loaded by Node) and
 * Next.js's server bundles (which hold their own copies of this module) find the same slot, and a
 * `next dev` hot reload does not build a second one.
 */
export const WEB_CONTAINER_KEY = Symbol.for('fairlane.web.container')

const slot = globalThis as typeof globalThis & { [WEB_CONTAINER_KEY]?: WebContainer }

/** The entry's call, once, before the server listens. */
export function registerWebContainer(container: WebContainer): void {
  if (slot[WEB_CONTAINER_KEY] && slot[WEB_CONTAINER_KEY] !== container) {
    throw new Error('a web container is already registered in this process')
  }
  slot[WEB_CONTAINER_KEY] = container
}

/** The registered container, if any. */
export function registeredWebContainer(): WebContainer | undefined {
  return slot[WEB_CONTAINER_KEY]
}
