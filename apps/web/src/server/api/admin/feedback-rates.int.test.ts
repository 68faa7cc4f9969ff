import { randomUUID } from 'node:crypto'
import { type MessageEventInput, recordMessageEvents } from '@fairlane/db/queries/message-events'
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
import { getFeedbackRates, type TenantFeedbackView } from './feedback-rates'

const env = setupTestEnvironment('web-admin-feedback-rates')

let harness: WebHarness
const now = new Date('2026-12-03T12:00:00Z')
const hourAgo = new Date(now.getTime() - 3_600_000)

const events = (
  tenantId: string,
  count: number,
  type: MessageEventInput['type'],
  detail?: Record<string, unknown>,
) =>
  Array.from({ length: count }, () => ({
    tenantId,
    messageId: randomUUID(),
    type,
    at: hourAgo,
    ...(detail ? { detail } : {}),
  }))

const hard = { kind: 'hard', status: '5.1.1', action: 'failed' }

let bouncy: string
let spammy: string
let small: string
let clean: string

beforeAll(async () => {
  harness = createWebHarness(env)
  bouncy = (await seedTenant(harness, 'Bouncy')).tenantId
  spammy = (await seedTenant(harness, 'Spammy')).tenantId
  small = (await seedTenant(harness, 'Small')).tenantId
  clean = (await seedTenant(harness, 'Clean')).tenantId
  await recordMessageEvents(harness.database.db, [
    ...events(bouncy, 400, 'sent'),
    ...events(bouncy, 24, 'bounced', hard), // 6 %
    ...events(spammy, 1000, 'sent'),
    ...events(spammy, 2, 'complained', { feedbackType: 'abuse' }), // 0.2 %
    ...events(small, 2, 'sent'),
    ...events(small, 1, 'bounced', hard), // 50 %, but too little mail to judge
    ...events(clean, 500, 'sent'),
    ...events(clean, 5, 'bounced', hard), // 1 %
  ])
})

afterAll(async () => {
  await harness?.close()
})

const read = (token: string | null = TEST_ADMIN_TOKEN) =>
  getFeedbackRates(jsonRequest('/api/admin/feedback-rates', { token }), {
    ...harness.adminDeps(),
    clock: { now: () => now },
  })

describe('GET /api/admin/feedback-rates', () => {
  it('rates each tenant over 24 h and flags those above 5 % bounces or 0.1 % complaints with enough mail', async () => {
    const response = await read()
    expect(response.status).toBe(200)
    const body = await readJson<{
      windowHours: number
      thresholds: { bounceRate: number; complaintRate: number; minSent: number }
      tenants: TenantFeedbackView[]
    }>(response)
    expect(body.windowHours).toBe(24)
    expect(body.thresholds).toEqual({ bounceRate: 0.05, complaintRate: 0.001, minSent: 100 })
    expect(
      body.tenants.map(({ name, bounceRate, complaintRate, flags }) => ({
        name,
        bounceRate,
        complaintRate,
        flags,
      })),
    ).toEqual([
      // Flagged first, the worst against its threshold first: 2 × 0.1 % before 1.2 × 5 %.
      { name: 'Spammy', bounceRate: 0, complaintRate: 0.002, flags: ['complaints'] },
      { name: 'Bouncy', bounceRate: 0.06, complaintRate: 0, flags: ['bounces'] },
      { name: 'Small', bounceRate: 0.5, complaintRate: 0, flags: [] },
      { name: 'Clean', bounceRate: 0.01, complaintRate: 0, flags: [] },
    ])
    expect(body.tenants[1]).toMatchObject({ id: bouncy, sent: 400, hardBounces: 24, complaints: 0 })
    expect(body.tenants.map((tenant) => tenant.id)).toEqual([spammy, bouncy, small, clean])
  })

  it('is for platform admins only', async () => {
    expect((await read(null)).status).toBe(401)
  })
})
