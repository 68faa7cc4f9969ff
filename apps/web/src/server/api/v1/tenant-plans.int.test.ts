import { type AcceptPlan, nextUtcDay, nextUtcMonth, utcDay, utcMonthStart } from '@fairlane/core/accept'
import { setupTestEnvironment } from '@fairlane/testing'
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

/**
 * Each tenant is held to its own plan at accept: its transactional rate and burst (the columns the
 * platform admin writes; null: the platform's) size its accept buckets, and its daily and monthly
 * quotas are counted in the accept's transaction, exactly, however many requests race.
 */
const env = setupTestEnvironment('web-tenant-plans')
let harness: WebHarness
let deps: ApiDeps

// The platform's plan: roomy. 1 s of critical horizon so a small own plan is reached quickly.
const platform: AcceptPlan = {
  critical: { plan: { ratePerSec: 50, burst: 50 }, horizonMs: 1_000 },
  default: { plan: { ratePerSec: 50, burst: 50 }, horizonMs: 60_000 },
}

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps({ acceptPlan: platform })
})
afterAll(async () => {
  await harness?.close()
})

type ErrorBody = { error: { code: string; message: string; details: { limit: string; resetAt?: string } } }

const post = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
  postMessage(jsonRequest('/api/v1/messages', { token: apiKey, body, headers }), deps)
const otp = (to: string) => ({ to, template: 'otp', variables: { code: '123456' } })
const note = (to: string) => ({ to, subject: 'Hello', text: 'A note' })

async function setPlan(
  tenantId: string,
  plan: { txRatePerSec?: number; txBurst?: number; quotaDaily?: number; quotaMonthly?: number },
) {
  await harness.database.sql`
    update tenants set tx_rate_per_sec = ${plan.txRatePerSec ?? null}, tx_burst = ${plan.txBurst ?? null},
      quota_daily = ${plan.quotaDaily ?? null}, quota_monthly = ${plan.quotaMonthly ?? null}
    where id = ${tenantId}`
}

async function usedToday(tenantId: string): Promise<{ accepted: number; bytes: number }> {
  const [row] = await harness.database.sql<{ accepted: number; bytes: number }[]>`
    select coalesce(sum(accepted), 0)::int as accepted, coalesce(sum(accepted_bytes), 0)::int as bytes
    from tenant_usage_days where tenant_id = ${tenantId} and day = ${utcDay(new Date())}::date`
  return row ?? { accepted: 0, bytes: 0 }
}

describe('a tenant’s own transactional plan', () => {
  it('refuses tenant A (2/s, burst 2) with 429 plan past its horizon while B, on the platform plan, is accepted', async () => {
    const a = await seedTenant(harness, 'Own plan')
    const b = await seedTenant(harness, 'Default plan')
    await setPlan(a.tenantId, { txRatePerSec: 2, txBurst: 2 })
    // A's critical bucket: 2/s × 1 s + 2 = 4 codes; the 5th and 6th are refused.
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await post(a.apiKey, otp(`a${i}@x.test`))).status)
    expect(statuses.slice(0, 4)).toEqual([202, 202, 202, 202])
    expect(statuses.slice(4)).toEqual([429, 429])
    const refused = await post(a.apiKey, otp('a-again@x.test'))
    expect(refused.status).toBe(429)
    expect((await readJson<ErrorBody>(refused)).error.details.limit).toBe('plan')

    // B's bucket is the platform's: 50 × 1 + 50 = 100; 20 codes at once are nothing to it.
    for (let i = 0; i < 20; i++) expect((await post(b.apiKey, otp(`b${i}@x.test`))).status).toBe(202)
  })
})

describe('quotas at accept', () => {
  it('accepts exactly the daily quota of 30 parallel requests and refuses the rest with 429 quota until midnight UTC', async () => {
    const t = await seedTenant(harness, 'Daily quota')
    await setPlan(t.tenantId, { quotaDaily: 10 })
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post(t.apiKey, note(`q${i}@x.test`))),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 202)).toHaveLength(10)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20)

    const refused = responses.find((response) => response.status === 429) as Response
    const body = await readJson<ErrorBody>(refused)
    expect(body.error.details).toEqual({ limit: 'quota', resetAt: nextUtcDay(new Date()).toISOString() })
    const retryAfter = Number(refused.headers.get('retry-after'))
    const untilMidnight = (nextUtcDay(new Date()).getTime() - Date.now()) / 1000
    expect(retryAfter).toBeGreaterThan(0)
    expect(Math.abs(retryAfter - untilMidnight)).toBeLessThan(5)

    const [count] = await harness.database.sql<{ count: number }[]>`
      select count(*)::int as count from messages where tenant_id = ${t.tenantId}`
    expect(count?.count).toBe(10)
    // 'Hello' + 'A note': 11 bytes each.
    expect(await usedToday(t.tenantId)).toEqual({ accepted: 10, bytes: 110 })
  })

  it('does not count a replayed idempotent request twice', async () => {
    const t = await seedTenant(harness, 'Replays')
    await setPlan(t.tenantId, { quotaDaily: 2 })
    const first = await post(t.apiKey, note('r@x.test'), { 'idempotency-key': 'one' })
    expect(first.status).toBe(202)
    const again = await Promise.all(
      [1, 2, 3].map(() => post(t.apiKey, note('r@x.test'), { 'idempotency-key': 'one' })),
    )
    for (const response of again) {
      expect(response.status).toBe(202)
      expect(response.headers.get('idempotent-replayed')).toBe('true')
    }
    expect(await usedToday(t.tenantId)).toMatchObject({ accepted: 1 })
    expect((await post(t.apiKey, note('s@x.test'), { 'idempotency-key': 'two' })).status).toBe(202)
    const over = await post(t.apiKey, note('u@x.test'), { 'idempotency-key': 'three' })
    expect(over.status).toBe(429)
    expect((await readJson<ErrorBody>(over)).error.details.limit).toBe('quota')
    // A replay of an accepted message is still answered once the quota is full.
    expect((await post(t.apiKey, note('r@x.test'), { 'idempotency-key': 'one' })).status).toBe(202)
    expect(await usedToday(t.tenantId)).toMatchObject({ accepted: 2 })
  })

  it('counts the calendar month across days and refuses until the first of the next month', async () => {
    const t = await seedTenant(harness, 'Monthly quota')
    await setPlan(t.tenantId, { quotaMonthly: 3, quotaDaily: 100 })
    const now = new Date()
    // Earlier this month (the month's first day; today when it is the 1st) and last month, which does not count.
    await harness.database.sql`
      insert into tenant_usage_days (tenant_id, day, lane, accepted, accepted_bytes)
      values (${t.tenantId}, ${utcMonthStart(now)}::date, 'bulk', 2, 0),
        (${t.tenantId}, (${utcMonthStart(now)}::date - 1), 'default', 50, 0)`
    expect((await post(t.apiKey, note('m1@x.test'))).status).toBe(202)
    const refused = await post(t.apiKey, note('m2@x.test'))
    expect(refused.status).toBe(429)
    const body = await readJson<ErrorBody>(refused)
    expect(body.error.details).toEqual({ limit: 'quota', resetAt: nextUtcMonth(now).toISOString() })
    expect(body.error.message).toContain('monthly')
  })

  it('stores the way in and the size on the message', async () => {
    const t = await seedTenant(harness, 'Source')
    expect((await post(t.apiKey, note('s@x.test'))).status).toBe(202)
    const [row] = await harness.database.sql<{ source: string; size_bytes: number }[]>`
      select source, size_bytes from messages where tenant_id = ${t.tenantId}`
    expect(row).toEqual({ source: 'api', size_bytes: 11 })
  })
})
