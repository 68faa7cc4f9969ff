import { parseConfig } from '@fairlane/config'
import {
  type ApiKeyScope,
  apiKeyPrefix,
  DEFAULT_REPEAT_WINDOW_MS,
  generateApiKey,
  hashApiKey,
  trackingKey,
} from '@fairlane/core'
import { type AcceptPlan, createTenantPlanCache } from '@fairlane/core/accept'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createApiKey } from '@fairlane/db/queries/api-keys'
import { createTenant } from '@fairlane/db/queries/tenants'
import { createTrackingStore } from '@fairlane/db/queries/tracking'
import { findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import { createDnsLookup, createHostAddressLookup } from '@fairlane/mail/dns'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  everyQueue,
  type Queues,
  type RedisClient,
} from '@fairlane/queue'
import { type TestEnvironment, testRedisTarget } from '@fairlane/testing'
import { isbot } from 'isbot'
import { acceptPlanOf, createAcceptBuckets } from '../accept-buckets'
import type { AdminDeps } from '../api/admin/deps'
import { adminProvisioning } from '../api/admin/provisioning-deps'
import type { ApiDeps } from '../api/v1/deps'
import { type AuthThrottle, type AuthThrottlePolicy, createAuthThrottle } from '../auth/auth-throttle'
import { type Auth, createAuth } from '../auth/better-auth'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import { createWebMetrics } from '../metrics'
import { createApiLimiters, type RateLimitSettings } from '../rate-limits'
import { type TenantLimits, tenantLimitsOf } from '../tenant-limits'
import type { TrackingRouteDeps } from '../tracking/tracking-routes'
import { sessionReader } from '../web-container'
import { type CollectingLogger, collectingLogger } from './logger'

/**
 * What the web handlers' integration tests share: the handlers' real dependencies, built from the
 * test file's own database and Redis prefix (never the container, which reads the environment).
 */
export interface WebHarness {
  database: DatabaseHandle
  redis: RedisClient
  queues: Queues
  logger: CollectingLogger
  apiDeps(overrides?: {
    settings?: RateLimitSettings
    redis?: RedisClient
    keyPrefix?: string
    /** DNS_SERVERS for domain verification (the test DNS server's address); the system's when left out. */
    dnsServers?: readonly string[]
    dnsTimeoutMs?: number
    /** WEBHOOK_ALLOW_PRIVATE; false (production's rule) when left out. */
    webhookAllowPrivate?: boolean
    /** Per-tenant caps; the configuration's defaults when left out. */
    tenantLimits?: TenantLimits
    /** The lane plans and horizons `POST /api/v1/messages` admits by; the defaults' when left out. */
    acceptPlan?: AcceptPlan
  }): ApiDeps
  adminDeps(adminToken?: string): AdminDeps
  /** The tracking routes' deps, keys from `TEST_UNSUBSCRIBE_SECRETS` (the worker harness signs with them). */
  trackingDeps(overrides?: {
    scannerWindowMs?: number
    repeatWindowMs?: number
    now?: () => Date
    secrets?: readonly { kid: number; secret: string }[]
  }): TrackingRouteDeps
  /** better-auth on this harness's database, as the web app's container makes it. */
  auth: Auth
  /** The sign-in/sign-up throttle `auth` runs (default policy, this file's Redis prefix). */
  authThrottle: AuthThrottle
  /** Another better-auth instance on this harness's database, with a throttle of its own. */
  makeAuth(options: { policy?: AuthThrottlePolicy; keyPrefix: string }): {
    auth: Auth
    throttle: AuthThrottle
  }
  /** A user signed in through better-auth; `cookie` is what their browser would send. */
  signIn(options: { platformAdmin: boolean }): Promise<{ email: string; userId: string; cookie: string }>
  close(): Promise<void>
}

export const TEST_SESSION_SECRET = 'web-test-session-secret-0123456789abcdef'
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789'
/** The secret provisioned tenants' first keys are derived under (SESSION_SECRET in the app). */
export const TEST_PROVISION_SECRET = 'test-provision-secret-0123456789abcdef'
export const TEST_APP_ORIGIN = 'http://127.0.0.1:3000'
/** UNSUBSCRIBE_SECRET of the web handlers' tests: unsubscribe and tracking keys derive from it. */
export const TEST_UNSUBSCRIBE_SECRETS = [{ kid: 1, secret: 'unsubscribe-test-secret-0123456789abcdef' }]
export const TEST_RETURN_PATH_HOST = 'bounces.fairlane.test'
/** A DKIM key-encryption key for the handlers' tests (32 bytes, key id `t1`). */
export const TEST_DKIM_ENCRYPTION_KEYS = [{ kid: 't1', key: Buffer.alloc(32, 7) }]

/** `laneShards`: LANE_SHARDS of the queues the handlers read (default 1). */
export function createWebHarness(env: TestEnvironment, options: { laneShards?: number } = {}): WebHarness {
  const logger = collectingLogger()
  const database = createDatabase(env.databaseUrl, { max: 30, applicationName: 'web-test' })
  const redis = createProducerConnection(testRedisTarget(env), 'web-test', logger)
  const queues = createQueues(redis, env.queuePrefix, logger, options.laneShards ?? 1)
  const clock = { now: () => new Date() }
  const makeAuth = (options: { policy?: AuthThrottlePolicy; keyPrefix: string }) => {
    const throttle = createAuthThrottle({
      redis,
      keyPrefix: options.keyPrefix,
      logger,
      policy: options.policy,
    })
    const made = createAuth({
      db: database.db,
      secret: TEST_SESSION_SECRET,
      baseURL: TEST_APP_ORIGIN,
      nextCookies: false,
      throttle,
    })
    return { auth: made, throttle }
  }
  const { auth, throttle: authThrottle } = makeAuth({ keyPrefix: `${env.queuePrefix}:rl` })
  const metrics = createWebMetrics()
  let users = 0
  const made: WebHarness = {
    database,
    redis,
    queues,
    logger,
    auth,
    authThrottle,
    makeAuth,
    async signIn({ platformAdmin }) {
      users += 1
      const email = `${platformAdmin ? 'admin' : 'user'}-${users}-${Date.now()}@example.test`
      const password = 'correct horse battery staple'
      // Each test user signs up from an address of its own, as people do, so no file meets the sign-up cap.
      const headers = new Headers({ [CLIENT_ADDRESS_HEADER]: `198.18.${users >> 8}.${users & 255}` })
      const created = await auth.api.signUpEmail({ body: { name: 'Test User', email, password }, headers })
      if (platformAdmin) {
        await database.sql`update users set is_platform_admin = true where id = ${created.user.id}`
      }
      const signedIn = await auth.api.signInEmail({ body: { email, password }, headers, returnHeaders: true })
      const cookie = signedIn.headers
        .getSetCookie()
        .map((header) => header.split(';')[0])
        .join('; ')
      return { email, userId: created.user.id, cookie }
    },
    apiDeps: (overrides = {}) => ({
      db: database.db,
      logger,
      clock,
      appUrl: TEST_APP_ORIGIN,
      lastTouched: new Map(),
      limiters: createApiLimiters({
        redis: overrides.redis ?? redis,
        keyPrefix: overrides.keyPrefix ?? `${env.queuePrefix}:rl`,
        settings: overrides.settings,
      }),
      tenantLimits: overrides.tenantLimits ?? tenantLimitsOf(parseConfig({})),
      planAdmission: {
        plan: overrides.acceptPlan ?? acceptPlanOf(parseConfig({})),
        buckets: createAcceptBuckets({
          redis: overrides.redis ?? redis,
          keyPrefix: overrides.keyPrefix ?? `${env.queuePrefix}:rl`,
        }),
        tenantPlans: createTenantPlanCache({
          load: (tenantId) => findTenantAdmissionPlan(database.db, { tenantId }),
          ttlMs: 0,
        }),
      },
      domains: {
        dns: createDnsLookup({
          servers: overrides.dnsServers,
          ...(overrides.dnsTimeoutMs !== undefined ? { timeoutMs: overrides.dnsTimeoutMs, tries: 1 } : {}),
        }),
        settings: { returnPathHost: TEST_RETURN_PATH_HOST },
        encryptionKeys: TEST_DKIM_ENCRYPTION_KEYS,
      },
      webhooks: {
        hosts: createHostAddressLookup({
          servers: overrides.dnsServers,
          ...(overrides.dnsTimeoutMs !== undefined ? { timeoutMs: overrides.dnsTimeoutMs, tries: 1 } : {}),
        }),
        settings: { allowPrivate: overrides.webhookAllowPrivate ?? false },
      },
    }),
    adminDeps: (adminToken = TEST_ADMIN_TOKEN) => ({
      db: database.db,
      adminToken,
      readSession: sessionReader(() => auth),
      appOrigin: TEST_APP_ORIGIN,
      queues: () => queues,
      redis,
      queuePrefix: env.queuePrefix,
      metrics: metrics.registry,
      logger,
      clock,
      provisioning: adminProvisioning(made.apiDeps(), TEST_PROVISION_SECRET),
    }),
    trackingDeps: (overrides = {}) => ({
      key: trackingKey(overrides.secrets ?? TEST_UNSUBSCRIBE_SECRETS),
      store: createTrackingStore(database.db),
      clock: { now: overrides.now ?? (() => new Date()) },
      isBotUserAgent: isbot,
      scannerWindowMs: overrides.scannerWindowMs ?? 0,
      repeatWindowMs: overrides.repeatWindowMs ?? DEFAULT_REPEAT_WINDOW_MS,
      logger,
    }),
    async close() {
      // The shared test Redis keeps nothing of this file: its queues go, the limiter keys expire.
      await Promise.all(everyQueue(queues).map((queue) => queue.obliterate({ force: true })))
      await closeQueues(queues)
      redis.disconnect()
      await database.close()
    },
  }
  return made
}

/** A tenant with one API key, made straight in the database. */
export async function seedTenant(
  harness: WebHarness,
  name = 'Tenant',
): Promise<{ tenantId: string; apiKey: string; keyId: string }> {
  const tenant = await createTenant(harness.database.db, { name })
  const apiKey = generateApiKey()
  const { id } = await createApiKey(harness.database.db, {
    tenantId: tenant.id,
    name: 'test key',
    prefix: apiKeyPrefix(apiKey),
    keyHash: hashApiKey(apiKey),
  })
  return { tenantId: tenant.id, apiKey, keyId: id }
}

/** Another key of a tenant, with the scope and domain restriction a test needs. */
export async function seedApiKey(
  harness: WebHarness,
  input: { tenantId: string; scope: ApiKeyScope; domain?: string | null; name?: string },
): Promise<{ apiKey: string; keyId: string; prefix: string }> {
  const apiKey = generateApiKey()
  const { id } = await createApiKey(harness.database.db, {
    tenantId: input.tenantId,
    name: input.name ?? `${input.scope} key`,
    prefix: apiKeyPrefix(apiKey),
    keyHash: hashApiKey(apiKey),
    scope: input.scope,
    domain: input.domain ?? null,
  })
  return { apiKey, keyId: id, prefix: apiKeyPrefix(apiKey) }
}

export interface JsonRequestOptions {
  method?: string
  token?: string | null
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}

/** A Request as Next.js hands it to a route: JSON body, bearer token, any extra headers. */
export function jsonRequest(path: string, options: JsonRequestOptions = {}): Request {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined = options.rawBody
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  return new Request(`http://127.0.0.1:3000${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  })
}

export async function readJson<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T
}
