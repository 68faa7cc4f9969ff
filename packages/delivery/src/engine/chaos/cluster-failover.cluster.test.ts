import { messages } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { laneQueueName, queuePrefix } from '@fairlane/queue'
import { connectTestRedis, controlRedisCluster, eventually, setupTestEnvironment } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, type SeedMessage, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * The master serving the critical lane's queue is failed over (`CLUSTER FAILOVER` on its replica)
 * while messages keep arriving and being sent: every message reaches the sink exactly once, counted
 * by Message-ID. Runs only in the `cluster` project (a local three-master cluster, a replica each).
 */
const test = setupTestEnvironment('failover')
const TOTAL = 800
const BATCH = 20
let sink: MailSink
let pipeline: TestPipeline | undefined

beforeAll(async () => {
  expect(test.redisCluster).toBe(true)
  sink = await startTestSink()
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

it('loses and duplicates nothing when the lane queue’s master fails over mid-send', async () => {
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
  const { db } = pipeline.database
  const tenantId = await createTenant(db)
  const cluster = controlRedisCluster(inject('redisClusterPorts'))

  // The node the critical lane's keys live on: every key of the queue carries its hash tag.
  const laneKey = `${queuePrefix(test.queuePrefix, laneQueueName('critical'))}:critical:wait`
  const slot = Number(await withClient((redis) => redis.cluster('KEYSLOT', laneKey)))
  const before = (await cluster.masters()).find((master) =>
    master.slots.some(([from, to]) => slot >= from && slot <= to),
  )
  expect(before?.replicaPorts.length).toBeGreaterThan(0)

  // A steady stream: a batch of API-shaped messages every 50 ms, going on through the failover.
  const seeded: SeedMessage[] = []
  const seeding = (async () => {
    for (let start = 0; start < TOTAL; start += BATCH) {
      const batch = await seedQueuedMessages(db, {
        tenantId,
        lane: 'critical',
        count: BATCH,
        to: (i) => `f${start + i}@example.com`,
      })
      seeded.push(...batch)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()

  await eventually(() => sink.store.size >= 100, { what: 'a first part delivered', timeoutMs: 30_000 })
  const deliveredAtFailover = sink.store.size
  const { fromPort, toPort } = await cluster.failover({ key: laneKey })
  expect(fromPort).toBe(before?.port)
  // It happened mid-stream: messages were still being seeded and sent.
  expect(deliveredAtFailover).toBeLessThan(TOTAL)
  const after = (await cluster.masters()).find((master) =>
    master.slots.some(([from, to]) => slot >= from && slot <= to),
  )
  expect(after?.port).toBe(toPort)

  await seeding
  await eventually(
    async () => {
      const [row] = await db
        .select({ open: sql<number>`count(*)::int` })
        .from(messages)
        .where(sql`${messages.status} <> 'sent'`)
      return row?.open === 0
    },
    { what: 'every row sent', timeoutMs: 90_000, intervalMs: 200 },
  )
  const received = new Set(sink.store.list().map((mail) => mail.messageId))
  expect(seeded).toHaveLength(TOTAL)
  expect(sink.store.size).toBe(TOTAL)
  expect(duplicateMessageIds(sink)).toEqual([])
  expect(seeded.filter((message) => !received.has(`<${message.id}@fairlane.test>`))).toEqual([])
  const [failed] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messages)
    .where(eq(messages.status, 'failed'))
  expect(failed?.n).toBe(0)
}, 150_000)

async function withClient<T>(use: (redis: ReturnType<typeof connectTestRedis>) => Promise<T>): Promise<T> {
  const redis = connectTestRedis(test)
  try {
    return await use(redis)
  } finally {
    redis.disconnect()
  }
}
