import { messages } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { flushAllNodes, type RedisClient } from '@fairlane/queue'
import {
  connectTestRedis,
  eventually,
  setupTestEnvironment,
  startThrowawayRedis,
  type ThrowawayRedis,
} from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * Redis loses everything mid-run: PostgreSQL still knows what is owed, so mail is late, never lost or
 * doubled. On a single Redis, one of the file's own (the FLUSHALL must not hit other files' keys); on
 * the `cluster` project the shared cluster, every master flushed (other files of that project run
 * in turn, not at once).
 */
const test = setupTestEnvironment('flushall')
let throwaway: ThrowawayRedis | undefined
let admin: RedisClient
let sink: MailSink
let pipeline: TestPipeline | undefined

beforeAll(async () => {
  if (!test.redisCluster) throwaway = await startThrowawayRedis()
  admin = throwaway ? throwaway.admin : connectTestRedis(test)
  sink = await startTestSink()
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  if (throwaway) await throwaway.stop()
  else admin?.disconnect()
})

it('delivers every message exactly once across a FLUSHALL of the queue Redis', async () => {
  const env = throwaway ? { ...test, redisUrl: throwaway.url } : test
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
  await flushAllNodes(admin)
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
