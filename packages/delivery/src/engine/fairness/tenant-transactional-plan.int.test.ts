import { rateViolations } from '@fairlane/fairness'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * The relay's turns and the lane workers' buckets follow each tenant's own transactional plan
 * (`tenants.tx_rate_per_sec` / `tx_burst`): tenant A, on 5/s with a burst of 2, is sent at no more than
 * that, while tenant B, on the platform's plan (1,000/s here), is sent at once.
 */
const test = setupTestEnvironment('tenant-tx-plan')
const OWN = { ratePerSec: 5, burst: 2 }
const COUNT = 20
let sink: MailSink
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    transactionalPlan: { ratePerSec: 1_000, burst: 1_000 },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

it('sends tenant A at most at its own 5/s (burst 2) and tenant B, on the platform plan, at once', async () => {
  const a = await createTenant(pipeline.database.db, 'Own plan')
  const b = await createTenant(pipeline.database.db, 'Platform plan')
  await pipeline.database.db.execute(
    sql`update tenants set tx_rate_per_sec = ${OWN.ratePerSec}, tx_burst = ${OWN.burst} where id = ${a}`,
  )
  const started = Date.now()
  await seedQueuedMessages(pipeline.database.db, {
    tenantId: a,
    count: COUNT,
    lane: 'critical',
    to: (i) => `a-${i}@example.com`,
  })
  await seedQueuedMessages(pipeline.database.db, {
    tenantId: b,
    count: COUNT,
    lane: 'critical',
    to: (i) => `b-${i}@example.com`,
  })
  const received = (prefix: string) =>
    sink.store.list().filter((mail) => mail.envelope.to.some((address) => address.startsWith(prefix)))

  await eventually(() => received('b-').length === COUNT, {
    what: "B's mail, all of it",
    timeoutMs: 15_000,
    intervalMs: 20,
  })
  const bDoneMs = Date.now() - started
  await eventually(() => received('a-').length === COUNT, {
    what: "A's mail, all of it",
    timeoutMs: 30_000,
    intervalMs: 50,
  })
  const aTimes = received('a-').map((mail) => Date.parse(mail.receivedAt))
  const aSpanMs = Math.max(...aTimes) - Math.min(...aTimes)
  // (20 − burst) / 5 per second: 3.6 s at the least; on the platform's plan it would take milliseconds.
  expect(aSpanMs).toBeGreaterThanOrEqual(3_000)
  expect(rateViolations(aTimes, OWN)).toBe(0)
  // B was not held to A's plan: done well before A could have been.
  expect(bDoneMs).toBeLessThan(aSpanMs)
  expect(duplicateMessageIds(sink)).toEqual([])
}, 60_000)
