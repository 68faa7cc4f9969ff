import { messages } from '@fairlane/db'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * A burst far over the tenant's transactional bucket, published at once (an outbox that filled while
 * the workers were down): most jobs are deferred to slots seconds ahead; every one must still be sent.
 */
const test = setupTestEnvironment('burst-deferral')
let pipeline: TestPipeline
let sink: Awaited<ReturnType<typeof startTestSink>>

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    transactionalPlan: { ratePerSec: 200, burst: 100 },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

it('sends every message of a burst 8x the bucket, none stuck waiting', async () => {
  const tenantId = await createTenant(pipeline.database.db, 'Burst')
  const count = 1_500
  await seedQueuedMessages(pipeline.database.db, {
    tenantId,
    count,
    lane: 'default',
    to: (i) => `burst-${i}@example.com`,
  })
  const sent = async () => {
    const [row] = await pipeline.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(messages)
      .where(and(eq(messages.tenantId, tenantId), eq(messages.status, 'sent')))
    return row?.n ?? 0
  }
  await eventually(async () => (await sent()) === count, {
    what: `all ${count} sent`,
    timeoutMs: 45_000,
    intervalMs: 250,
  })
  expect(duplicateMessageIds(sink)).toEqual([])
})
