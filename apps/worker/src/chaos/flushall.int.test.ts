import { messages } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment, startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../test-support/pipeline'
import { createTenant, seedQueuedMessages } from '../test-support/seed'
import { duplicateMessageIds, startTestSink } from '../test-support/sink'

/** Redis loses everything mid-run: PostgreSQL still knows what is owed, so mail is late, never lost or doubled. */
const test = setupTestEnvironment('flushall')
let redis: ThrowawayRedis
let sink: MailSink
let pipeline: TestPipeline | undefined

beforeAll(async () => {
  redis = await startThrowawayRedis()
  sink = await startTestSink()
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  await redis?.stop()
})

it('delivers every message exactly once across a FLUSHALL of the queue Redis', async () => {
  const env = { ...test, redisUrl: redis.url }
  pipeline = await startTestPipeline(env, sink, {
    concurrency: { critical: 4, default: 2, bulk: 1 },
    logger: testLogger(process.env.TEST_LOG_LEVEL),
  })
  const { db } = pipeline.database
  const tenantId = await createTenant(db)
  await seedQueuedMessages(db, { tenantId, lane: 'critical', count: 600, to: (i) => `c${i}@example.com` })
  await seedQueuedMessages(db, { tenantId, lane: 'default', count: 200, to: (i) => `d${i}@example.com` })

  await eventually(() => sink.store.size >= 150, {
    what: 'a first part delivered',
    timeoutMs: 20_000,
    intervalMs: 5,
  })
  await redis.admin.flushall()
  const deliveredAtFlush = sink.store.size
  expect(deliveredAtFlush).toBeLessThan(700)

  await eventually(
    async () => {
      const [row] = await db
        .select({ open: sql<number>`count(*)::int` })
        .from(messages)
        .where(sql`${messages.status} <> 'sent'`)
      return row?.open === 0
    },
    { what: 'every row sent', timeoutMs: 45_000, intervalMs: 200 },
  )
  expect(sink.store.size).toBe(800)
  expect(duplicateMessageIds(sink)).toEqual([])
  const [failed] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messages)
    .where(eq(messages.status, 'failed'))
  expect(failed?.n).toBe(0)
  expect(await pipeline.registry.metrics()).toMatch(
    /fairlane_sweeper_republished_total\{status="queued"\} [1-9]/,
  )
})
