import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import { createApiKey } from '@fairlane/db/queries/api-keys'
import { createProducerConnection } from '@fairlane/queue'
import { eventually, freePort, setupTestEnvironment, startThrowawayRedis } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { postMessage } from './post-message'

const env = setupTestEnvironment('web-rl')

let harness: WebHarness
let tenant: Awaited<ReturnType<typeof seedTenant>>
const cleanups: (() => void | Promise<void>)[] = []

beforeAll(async () => {
  harness = createWebHarness(env)
  tenant = await seedTenant(harness)
})

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  await harness?.close()
})

const otp = (to: string, code = '123456') => ({ to, template: 'otp', variables: { code } })

const post = (deps: ApiDeps, body: unknown) =>
  postMessage(jsonRequest('/api/v1/messages', { token: tenant.apiKey, body }), deps)

async function messagesTo(address: string): Promise<number> {
  const [row] = await harness.database.sql<{ count: number }[]>`
    select count(*)::int as count from messages where lower(to_address) = lower(${address})`
  return row?.count ?? 0
}

describe('per-recipient limit on OTP and password-reset', () => {
  it('allows 5 a minute per address, then answers 429 with Retry-After and writes nothing', async () => {
    const deps = harness.apiDeps()
    const address = 'limited@example.test'
    for (let index = 0; index < 5; index++) {
      const response = await post(deps, otp(index % 2 ? address.toUpperCase() : address, `10000${index}`))
      expect(response.status).toBe(202)
    }
    const refused = await post(deps, otp(address, '999999'))
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect((await readJson<{ error: { code: string } }>(refused)).error.code).toBe('rate_limited')
    expect(await messagesTo(address)).toBe(5)

    const reset = await post(deps, {
      to: address,
      template: 'password-reset',
      variables: { resetUrl: 'https://a.test/r' },
    })
    expect(reset.status).toBe(429)
    // Other addresses and non-critical mail to the same address are not limited by it.
    expect((await post(deps, otp('someone-else@example.test'))).status).toBe(202)
    expect((await post(deps, { to: address, subject: 'Receipt', text: 'x' })).status).toBe(202)
  })
})

describe('per-key request rate', () => {
  it('answers 429 with Retry-After once the key’s rate and burst are spent', async () => {
    const deps = harness.apiDeps({
      settings: {
        perTenant: { pointsPerSec: 100, burstPoints: 100, burstWindowSec: 10 },
        perKey: { pointsPerSec: 3, burstPoints: 2, burstWindowSec: 10 },
        perRecipient: { points: 100, windowSec: 60 },
      },
      keyPrefix: `${env.queuePrefix}:rl-key-test`,
    })
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let index = 0; index < 7; index++) {
      const response = await post(deps, { to: `k${index}@example.test`, subject: 'Hi', text: 'x' })
      statuses.push(response.status)
      if (response.status === 429) retryAfter = response.headers.get('retry-after')
    }
    expect(statuses.filter((status) => status === 202).length).toBe(5)
    expect(statuses.at(-1)).toBe(429)
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
    const refused = await post(deps, { to: 'k-last@example.test', subject: 'Hi', text: 'x' })
    expect(await readJson(refused)).toMatchObject({
      error: {
        code: 'rate_limited',
        message: 'Too many requests for this API key',
        details: { limit: 'api-key' },
      },
    })
  })
})

describe('per-tenant request rate', () => {
  it('holds two keys of one tenant together to the tenant’s limit, naming it in the 429', async () => {
    // A steady rate of 1/s keeps a second boundary inside the run from letting more than one more through.
    const deps = harness.apiDeps({
      settings: {
        perTenant: { pointsPerSec: 1, burstPoints: 5, burstWindowSec: 60 },
        perKey: { pointsPerSec: 100, burstPoints: 100, burstWindowSec: 10 },
        perRecipient: { points: 100, windowSec: 60 },
      },
      keyPrefix: `${env.queuePrefix}:rl-tenant-test`,
    })
    const owner = await seedTenant(harness, 'Two keys')
    const secondKey = generateApiKey()
    await createApiKey(harness.database.db, {
      tenantId: owner.tenantId,
      name: 'second',
      prefix: apiKeyPrefix(secondKey),
      keyHash: hashApiKey(secondKey),
    })
    const responses: Response[] = []
    for (let index = 0; index < 12; index++) {
      const token = index % 2 === 0 ? owner.apiKey : secondKey
      const body = { to: `t${index}@example.test`, subject: 'Hi', text: 'x' }
      responses.push(await postMessage(jsonRequest('/api/v1/messages', { token, body }), deps))
    }
    const accepted = responses.filter((response) => response.status === 202).length
    expect(accepted).toBeGreaterThanOrEqual(6)
    expect(accepted).toBeLessThanOrEqual(7)
    const refused = responses.filter((response) => response.status === 429)
    expect(refused).toHaveLength(12 - accepted)
    for (const response of refused) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(await readJson(response)).toMatchObject({
        error: {
          code: 'rate_limited',
          details: { limit: 'tenant' },
          message: expect.stringMatching(/this tenant/),
        },
      })
    }
    // Another tenant's calls are not counted with it.
    expect((await post(deps, { to: 'elsewhere@example.test', subject: 'Hi', text: 'x' })).status).toBe(202)
  })
})

describe('with the limiter Redis down', () => {
  it('keeps accepting mail (in-memory insurance), and still limits per recipient', async () => {
    const redis = await startThrowawayRedis()
    cleanups.push(redis.stop)
    const connection = createProducerConnection(
      { url: redis.url, cluster: false },
      'web-limiter-test',
      harness.logger,
    )
    cleanups.push(() => connection.disconnect())
    await eventually(() => connection.status === 'ready', { what: 'limiter connection ready' })
    const deps = harness.apiDeps({ redis: connection, keyPrefix: `${env.queuePrefix}:rl-down` })
    expect((await post(deps, otp('before@example.test'))).status).toBe(202)

    await redis.stop()
    await eventually(() => connection.status !== 'ready', { what: 'limiter connection to notice' })
    const started = performance.now()
    const response = await post(deps, otp('during@example.test'))
    expect(response.status).toBe(202)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(await messagesTo('during@example.test')).toBe(1)

    // The insurance limiter enforces the same per-recipient limit inside this process.
    const statuses: number[] = []
    for (let index = 0; index < 5; index++)
      statuses.push((await post(deps, otp('during@example.test'))).status)
    expect(statuses).toEqual([202, 202, 202, 202, 429])
  })

  it('accepts mail when the limiter Redis was never reachable', async () => {
    const connection = createProducerConnection(
      { url: `redis://127.0.0.1:${await freePort()}`, cluster: false },
      'web-nowhere',
      harness.logger,
    )
    cleanups.push(() => connection.disconnect())
    const deps = harness.apiDeps({ redis: connection })
    const response = await post(deps, otp('nowhere@example.test'))
    expect(response.status).toBe(202)
  })
})
