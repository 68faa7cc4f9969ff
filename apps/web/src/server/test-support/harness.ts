import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createApiKey } from '@fairlane/db/queries/api-keys'
import { createTenant } from '@fairlane/db/queries/tenants'
import { closeQueues, createProducerConnection, createQueues, type Queues } from '@fairlane/queue'
import type { TestEnvironment } from '@fairlane/testing'
import type { Redis } from 'ioredis'
import type { AdminDeps } from '../api/admin/deps'
import type { ApiDeps } from '../api/v1/deps'
import { createApiLimiters, type RateLimitSettings } from '../rate-limits'
import { type CollectingLogger, collectingLogger } from './logger'

/**
 * What the web handlers' integration tests share: the handlers' real dependencies, built from the
 * test file's own database and Redis prefix (never the container, which reads the environment).
 */
export interface WebHarness {
  database: DatabaseHandle
  redis: Redis
  queues: Queues
  logger: CollectingLogger
  apiDeps(overrides?: { settings?: RateLimitSettings; redis?: Redis; keyPrefix?: string }): ApiDeps
  adminDeps(adminToken?: string): AdminDeps
  close(): Promise<void>
}

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789'

export function createWebHarness(env: TestEnvironment): WebHarness {
  const logger = collectingLogger()
  const database = createDatabase(env.databaseUrl, { max: 30, applicationName: 'web-test' })
  const redis = createProducerConnection(env.redisUrl, 'web-test', logger)
  const queues = createQueues(redis, env.queuePrefix, logger)
  const clock = { now: () => new Date() }
  return {
    database,
    redis,
    queues,
    logger,
    apiDeps: (overrides = {}) => ({
      db: database.db,
      logger,
      clock,
      lastTouched: new Map(),
      limiters: createApiLimiters({
        redis: overrides.redis ?? redis,
        keyPrefix: overrides.keyPrefix ?? `${env.queuePrefix}:rl`,
        settings: overrides.settings,
      }),
    }),
    adminDeps: (adminToken = TEST_ADMIN_TOKEN) => ({
      db: database.db,
      adminToken,
      queues: () => queues,
      logger,
      clock,
    }),
    async close() {
      // The shared test Redis keeps nothing of this file: its queues go, the limiter keys expire.
      await Promise.all(Object.values(queues).map((queue) => queue.obliterate({ force: true })))
      await closeQueues(queues)
      redis.disconnect()
      await database.close()
    },
  }
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
