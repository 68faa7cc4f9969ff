import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Delivery, type TenantSpec, weightedShares } from '../../../../../../bench/lib/fairness/measure'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../../test-support/harness'
import { getFairness } from './fairness'

/**
 * The admin console's fairness page and `pnpm bench:fairness` judge the same sends the same way:
 * one set of bulk sends goes into PostgreSQL (what the page reads) and to the benchmark's own
 * measure (what it reads from the sink), and both give one Jain's index.
 */
const env = setupTestEnvironment('web-fairness-agreement')
let harness: WebHarness

beforeAll(() => {
  harness = createWebHarness(env)
})
afterAll(async () => {
  await harness?.close()
})

const SPECS: TenantSpec[] = [
  { name: 'Ten', domain: 'ten.example.test', ratePerSec: 10, burst: 20, weight: 1 },
  { name: 'Fifty', domain: 'fifty.example.test', ratePerSec: 50, burst: 100, weight: 1 },
  { name: 'Heavy', domain: 'heavy.example.test', ratePerSec: 100, burst: 200, weight: 2 },
]

/** `perSecond` sends in each of the seconds `from` to `to` seconds before `nowSecond`, spread in the second. */
function sends(domain: string, perSecond: number, from: number, to: number, nowSecond: number): Delivery[] {
  const out: Delivery[] = []
  for (let ago = from; ago >= to; ago -= 1) {
    for (let i = 0; i < perSecond; i += 1) {
      out.push({
        to: `r${ago}-${i}@${domain}`,
        at: (nowSecond - ago) * 1000 + Math.floor((i * 1000) / perSecond),
      })
    }
  }
  return out
}

describe('Jain’s index, page and benchmark', () => {
  it('is the same number for the same sends, and judges only the seconds when tenants competed', async () => {
    const sql = harness.database.sql
    const ids = new Map<string, string>()
    for (const spec of SPECS) {
      const { tenantId } = await seedTenant(harness, spec.name)
      await sql`update tenants set rate_per_sec = ${spec.ratePerSec}, burst = ${spec.burst}, weight = ${spec.weight}
        where id = ${tenantId}`
      ids.set(spec.domain, tenantId)
    }
    const nowSecond = Math.floor(Date.now() / 1000)
    const deliveries = [
      // Ten alone: no competition, not judged.
      ...sends('ten.example.test', 10, 75, 66, nowSecond),
      // Ten and Fifty each at their own plan's full rate: fair, though Fifty sends five times as much.
      ...sends('ten.example.test', 10, 60, 31, nowSecond),
      ...sends('fifty.example.test', 50, 60, 31, nowSecond),
      // Fifty and Heavy (weight 2) share 50/s: Heavy is owed two thirds and gets two fifths.
      ...sends('fifty.example.test', 30, 30, 11, nowSecond),
      ...sends('heavy.example.test', 20, 30, 11, nowSecond),
    ]
    const rows = deliveries.map((delivery) => ({
      tenant_id: ids.get(delivery.to.split('@')[1] ?? '') as string,
      to_address: delivery.to,
      sent_at: new Date(delivery.at).toISOString(),
    }))
    await sql`
      insert into messages (tenant_id, lane, status, to_address, sent_at)
      select r.tenant_id::uuid, 'bulk', 'sent', r.to_address, r.sent_at::timestamptz
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(tenant_id text, to_address text, sent_at text)`

    const response = await getFairness(
      jsonRequest('/api/admin/fairness?windowSeconds=120&bucketSeconds=1', { token: TEST_ADMIN_TOKEN }),
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const page = await readJson<{ jainIndex: number | null; competedSeconds: number }>(response)
    const bench = weightedShares(deliveries, SPECS)

    expect(page.competedSeconds).toBe(50)
    expect(page.jainIndex).not.toBeNull()
    expect(bench.jainIndex).toBe(Math.round((page.jainIndex ?? 0) * 1000) / 1000)
    // Ten and Fifty are fair to each other; Heavy's short share in the last 20 s is what lowers it.
    expect(page.jainIndex).toBeLessThan(0.99)
    expect(page.jainIndex).toBeGreaterThan(0.8)
  })
})
