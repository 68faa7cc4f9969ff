import type { AcceptPlan } from '@fairlane/core/accept'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { postMessage } from './post-message'

/**
 * Admission at the API edge follows the plan (ACCEPT_HORIZON_MS): a tenant that has accepted more
 * login codes than its lane plan sends within the horizon is refused with 429 `plan` and a
 * Retry-After, before its body is read; another tenant is not; once its plan has sent some, it is
 * accepted again.
 */
const env = setupTestEnvironment('web-plan')
let harness: WebHarness
let deps: ApiDeps

// 2 mails/s, burst 1, 1 s ahead: 3 login codes at once, then one more every 500 ms.
const plan: AcceptPlan = {
  critical: { plan: { ratePerSec: 2, burst: 1 }, horizonMs: 1_000 },
  default: { plan: { ratePerSec: 2, burst: 1 }, horizonMs: 60_000 },
}

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps({ acceptPlan: plan })
})
afterAll(async () => {
  await harness?.close()
})

const post = (apiKey: string, body: unknown) =>
  postMessage(jsonRequest('/api/v1/messages', { token: apiKey, body }), deps)
const otp = (to: string) => ({ to, template: 'otp', variables: { code: '123456' } })

it('refuses a tenant past its horizon with 429 plan before reading the body; another tenant is not; drained, it is accepted', async () => {
  const a = await seedTenant(harness, 'Flooder')
  const b = await seedTenant(harness, 'Bystander')
  for (let i = 0; i < 3; i++) expect((await post(a.apiKey, otp(`a${i}@x.test`))).status).toBe(202)

  const refused = await post(a.apiKey, otp('a3@x.test'))
  expect(refused.status).toBe(429)
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  const error = (await readJson<{ error: { code: string; details: { limit: string } } }>(refused)).error
  expect(error).toMatchObject({ code: 'rate_limited', details: { limit: 'plan' } })
  // Not even read: a body that is not JSON gets the same 429, not a 400.
  const unread = await postMessage(
    jsonRequest('/api/v1/messages', {
      token: a.apiKey,
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    }),
    deps,
  )
  expect(unread.status).toBe(429)

  // B's code goes through while A is refused.
  expect((await post(b.apiKey, otp('b@x.test'))).status).toBe(202)

  // At 2/s A has room again within about half a second.
  await eventually(async () => (await post(a.apiKey, otp('a-later@x.test'))).status === 202, {
    what: 'A accepted again once its plan has sent some',
    timeoutMs: 5_000,
    intervalMs: 100,
  })
  const [row] = await harness.database.sql<{ count: number }[]>`
    select count(*)::int as count from messages where tenant_id = ${a.tenantId}`
  expect(row?.count).toBe(4)
})
