import { utcDay } from '@fairlane/core/accept'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rateLimitSettings } from '../../rate-limits'
import type { RouteDeps } from '../../routes'
import { callRoute, documentedAnswer, routeDeps } from '../../test-support/api-calls'
import { createWebHarness, seedApiKey, seedTenant, type WebHarness } from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from './openapi/document'

/** `GET /api/v1/usage` through the route table, checked against the API document, on real PostgreSQL. */
const env = setupTestEnvironment('web-usage')
let harness: WebHarness
let deps: RouteDeps
let checked: CheckedDocument

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = routeDeps(harness, harness.apiDeps())
  checked = await checkOpenApiDocument(buildOpenApiDocument())
})
afterAll(async () => {
  await harness?.close()
})

const USAGE = { path: '/api/v1/usage', method: 'get' }
type Counts = { accepted: number; sent: number; bounced: number; complained: number; suppressed: number }
type Usage = {
  days: (Counts & { date: string; lanes: Record<string, Counts> })[]
  quota?: { daily?: number; monthly?: number; usedToday: number; usedThisMonth: number }
}
type ErrorBody = { error: { code: string; details?: { path: string }[] | { limit: string } } }

describe('GET /api/v1/usage', () => {
  it('counts what was accepted today by lane, and the outcomes of that mail; another tenant sees none of it', async () => {
    const t = await seedTenant(harness, 'Usage')
    const other = await seedTenant(harness, 'Other')
    for (const to of ['a@x.test', 'b@x.test', 'c@x.test']) {
      const response = await callRoute(deps, 'POST', '/api/v1/messages', {
        token: t.apiKey,
        body: { to, subject: 'Hi', text: 'Hello' },
      })
      expect(response.status).toBe(202)
    }
    const otp = await callRoute(deps, 'POST', '/api/v1/messages', {
      token: t.apiKey,
      body: { to: 'd@x.test', template: 'otp', variables: { code: '123456' } },
    })
    expect(otp.status).toBe(202)
    // What the worker and the inbound server would have written.
    await harness.database.sql`
      update messages set status = 'sent', sent_at = now() where tenant_id = ${t.tenantId} and to_address = 'a@x.test'`
    await harness.database.sql`
      update messages set status = 'bounced', sent_at = now() where tenant_id = ${t.tenantId} and to_address = 'b@x.test'`
    await harness.database.sql`
      update messages set status = 'suppressed' where tenant_id = ${t.tenantId} and to_address = 'c@x.test'`

    const usage = await documentedAnswer<Usage>(
      checked,
      USAGE,
      await callRoute(deps, 'GET', '/api/v1/usage', { token: t.apiKey }),
    )
    expect(usage.days).toHaveLength(30)
    const today = usage.days.at(-1)
    expect(today).toMatchObject({
      date: utcDay(new Date()),
      accepted: 4,
      sent: 2,
      bounced: 1,
      complained: 0,
      suppressed: 1,
    })
    expect(today?.lanes.default).toEqual({ accepted: 3, sent: 2, bounced: 1, complained: 0, suppressed: 1 })
    expect(today?.lanes.critical).toEqual({ accepted: 1, sent: 0, bounced: 0, complained: 0, suppressed: 0 })
    expect(usage.days.slice(0, -1).every((day) => day.accepted === 0 && day.sent === 0)).toBe(true)
    expect(usage.quota).toBeUndefined()

    const theirs = await documentedAnswer<Usage>(
      checked,
      USAGE,
      await callRoute(deps, 'GET', '/api/v1/usage', { token: other.apiKey }),
    )
    expect(theirs.days.every((day) => day.accepted === 0 && day.sent === 0)).toBe(true)

    await harness.database
      .sql`update tenants set quota_daily = 100, quota_monthly = 1000 where id = ${t.tenantId}`
    const withQuota = await documentedAnswer<Usage>(
      checked,
      USAGE,
      await callRoute(deps, 'GET', `/api/v1/usage?from=${utcDay(new Date())}&to=${utcDay(new Date())}`, {
        token: t.apiKey,
      }),
    )
    expect(withQuota.days).toHaveLength(1)
    expect(withQuota.quota).toEqual({ daily: 100, monthly: 1000, usedToday: 4, usedThisMonth: 4 })
  })

  it('refuses bad dates and ranges with 400 naming `from` or `to`, and a sending key with 403', async () => {
    const t = await seedTenant(harness, 'Bad input')
    const field = async (query: string) => {
      const response = await callRoute(deps, 'GET', `/api/v1/usage?${query}`, { token: t.apiKey })
      expect(response.status).toBe(400)
      const body = await documentedAnswer<ErrorBody>(checked, USAGE, response)
      return (body.error.details as { path: string }[])[0]?.path
    }
    expect(await field('from=2026-02-30')).toBe('from')
    expect(await field('from=12/01/2026')).toBe('from')
    expect(await field('to=tomorrow')).toBe('to')
    expect(await field('from=2026-12-06&to=2026-12-01')).toBe('from')
    expect(await field('from=2026-01-01&to=2026-12-01')).toBe('to')

    const sending = await seedApiKey(harness, { tenantId: t.tenantId, scope: 'sending' })
    expect((await callRoute(deps, 'GET', '/api/v1/usage', { token: sending.apiKey })).status).toBe(403)
  })

  it('sizes a tenant’s request rate from its own transactional plan (API_TENANT_RATE_FACTOR × its rate)', async () => {
    const limited = routeDeps(
      harness,
      harness.apiDeps({
        keyPrefix: `${env.queuePrefix}:rl-plan`,
        settings: rateLimitSettings({
          API_TENANT_RATE_FACTOR: 1,
          TRANSACTIONAL_RATE_PER_SEC: 200,
          TRANSACTIONAL_BURST: 100,
        }),
      }),
    )
    const small = await seedTenant(harness, 'One a second')
    const big = await seedTenant(harness, 'Platform plan')
    await harness.database
      .sql`update tenants set tx_rate_per_sec = 1, tx_burst = 1 where id = ${small.tenantId}`
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      statuses.push((await callRoute(limited, 'GET', '/api/v1/usage', { token: small.apiKey })).status)
    }
    // 1 a second plus a burst of 1 per 10 s: two calls, then 429 naming the tenant's limit.
    expect(statuses).toEqual([200, 200, 429, 429])
    const refused = await callRoute(limited, 'GET', '/api/v1/usage', { token: small.apiKey })
    expect(((await refused.json()) as ErrorBody).error.details).toEqual({ limit: 'tenant' })
    for (let i = 0; i < 4; i++) {
      expect((await callRoute(limited, 'GET', '/api/v1/usage', { token: big.apiKey })).status).toBe(200)
    }
  })
})
