import { createReceiverStateStore } from '@fairlane/db/queries/receiver-states'
import { initialRate, onThrottle, type RateState } from '@fairlane/delivery/shaping/aimd'
import { createReceiverCounters } from '@fairlane/fairness'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../../test-support/harness'
import { getReceivers, type ReceiversJson } from './receivers'

const env = setupTestEnvironment('web-admin-receivers')

let harness: WebHarness
let big: string
let small: string
const throttledAt = Date.now()
const EGRESS = '127.0.0.1'
const REPLY = '421 4.7.28 [127.0.0.1] Our system has detected an unusual rate of unsolicited mail'

beforeAll(async () => {
  harness = createWebHarness(env)
  big = (await seedTenant(harness, 'Big')).tenantId
  small = (await seedTenant(harness, 'Small')).tenantId
  const store = createReceiverStateStore<RateState>(harness.database.db)
  // As the worker's gate writes them: google throttled everyone at this address, and big's domain alone.
  await store.throttle({ egress: EGRESS, provider: 'google', scope: '' }, REPLY, (current) => {
    const state = onThrottle(current ?? initialRate({ perMinute: 600 }, throttledAt), throttledAt)
    return { state, pausedUntil: new Date(state.pausedUntilMs) }
  })
  await store.throttle({ egress: EGRESS, provider: 'google', scope: big }, REPLY, (current) => {
    const state = onThrottle(current ?? initialRate({ perMinute: 600 }, throttledAt), throttledAt)
    return { state, pausedUntil: new Date(state.pausedUntilMs) }
  })
  const counters = createReceiverCounters(harness.redis, { prefix: `${env.queuePrefix}:` })
  const google = { provider: 'google', egress: EGRESS }
  for (const [tenantId, kind] of [
    [big, 'attempt'],
    [big, 'attempt'],
    [big, 'attempt'],
    [small, 'attempt'],
    [big, 'throttled'],
    [big, 'deferred'],
    [small, 'deferred'],
  ] as const)
    await counters.record({ ...google, tenantId, kind })
  await counters.record({ provider: 'microsoft', egress: EGRESS, tenantId: small, kind: 'attempt' })
})

afterAll(async () => {
  await harness?.close()
})

const read = (atMs: number, token: string | null = TEST_ADMIN_TOKEN) =>
  getReceivers(jsonRequest('/api/admin/receivers', { token }), {
    ...harness.adminDeps(),
    clock: { now: () => new Date(atMs) },
  })

describe('GET /api/admin/receivers', () => {
  it('answers a throttled provider paused, with its counts, tenants’ shares and slowed tenants', async () => {
    const response = await read(throttledAt + 1_000)
    expect(response.status).toBe(200)
    const body = await readJson<ReceiversJson>(response)
    expect(body.map((receiver) => receiver.provider)).toEqual(['google', 'microsoft'])
    expect(body[0]).toEqual({
      provider: 'google',
      egress: EGRESS,
      ratePerMinute: 0,
      ceilingPerMinute: 600,
      pausedUntil: new Date(throttledAt + 15_000).toISOString(),
      attempts5m: 4,
      throttled5m: 1,
      deferred5m: 2,
      tenants: [
        { id: big, share: 0.75, name: 'Big' },
        { id: small, share: 0.25, name: 'Small' },
      ],
      lastThrottledPerMinute: 600,
      lastReply: REPLY,
      lastThrottledAt: expect.any(String),
      attempts60m: 4,
      accepted60m: 0,
      throttled60m: 1,
      deferred60m: 2,
      slowedTenants: [
        { id: big, name: 'Big', ratePerMinute: 0, pausedUntil: new Date(throttledAt + 15_000).toISOString() },
      ],
    })
    // Never throttled: at the rules' ceiling, with nothing a throttle leaves behind.
    expect(body[1]).toMatchObject({ provider: 'microsoft', ratePerMinute: 600, ceilingPerMinute: 600 })
    expect(body[1]).not.toHaveProperty('pausedUntil')
    expect(body[1]).not.toHaveProperty('lastReply')
  })

  it('answers the same provider recovering after its pause: the cut rate, climbing', async () => {
    const afterPause = await readJson<ReceiversJson>(await read(throttledAt + 15_000))
    const later = await readJson<ReceiversJson>(await read(throttledAt + 15_000 + 3 * 60_000))
    expect(afterPause[0]).not.toHaveProperty('pausedUntil')
    expect(afterPause[0]?.ratePerMinute).toBe(300)
    // The default rules probe upward by 20 a minute, at half speed past nothing (never throttled below 600).
    expect(later[0]?.ratePerMinute).toBeGreaterThan(300)
    expect(later[0]?.ratePerMinute).toBeLessThan(600)
    expect(later[0]?.slowedTenants[0]).toEqual({
      id: big,
      name: 'Big',
      ratePerMinute: later[0]?.ratePerMinute,
    })
  })

  it('refuses anyone but a platform admin', async () => {
    expect((await read(throttledAt, 'not-the-admin-token')).status).toBe(401)
  })
})
