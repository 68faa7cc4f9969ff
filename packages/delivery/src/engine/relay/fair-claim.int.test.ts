import { createDatabase, type DatabaseHandle, messageEvents, outbox } from '@fairlane/db'
import { createLaneAdmission, laneParkKey } from '@fairlane/fairness'
import { createProducerConnection, type RedisClient, sendJobId } from '@fairlane/queue'
import { setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { and, asc, eq, isNull } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { inspectQueues, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { createParkingState, type TransactionalFairness } from './lane-parking'
import { type PublishDeps, publishOutboxBatch } from './publish-batch'

/**
 * The relay's claim is fair across tenants: a tenant's one login code is published in the first pass
 * however many rows another tenant accepted before it, and is never parked behind that flood; the
 * flooding tenant's own rows still go out once each, in the order they were accepted.
 */
const test = setupTestEnvironment('fair-claim')
let database: DatabaseHandle
let inspect: ReturnType<typeof inspectQueues>
let redis: RedisClient
let fairness: TransactionalFairness

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 5 })
  inspect = inspectQueues(test)
  redis = createProducerConnection(testRedisTarget(test), 'test-fair-claim', testLogger())
  fairness = {
    admission: createLaneAdmission(redis, { prefix: `${test.queuePrefix}:` }),
    plan: { ratePerSec: 100_000, burst: 1_000 },
    slots: 200,
    slotTtlMs: 30_000,
    horizonMs: 1_000,
    slotRetryMs: 60_000,
    parking: createParkingState(),
  }
})
afterAll(async () => {
  await inspect?.close()
  await redis?.quit()
  await database?.close()
})

const deps = (): PublishDeps => ({
  db: database.db,
  lanes: inspect.queues.lanes,
  batchSize: 500,
  tenantRowsPerPass: 100,
  addTimeoutMs: 10_000,
  skipIds: new Set(),
  logger: testLogger(),
  fairness,
})

it("publishes B's one code in the first pass behind A's 2,000, unparked; A's rows go once each, in order", async () => {
  const a = await createTenant(database.db, 'Flooder')
  const b = await createTenant(database.db, 'Bystander')
  const flood = await seedQueuedMessages(database.db, {
    tenantId: a,
    count: 2_000,
    to: (i) => `a${i}@x.test`,
  })
  const [otp] = await seedQueuedMessages(database.db, { tenantId: b, to: () => 'b@x.test' })

  const first = await publishOutboxBatch(deps())
  expect(await inspect.lane('critical').getJobState(sendJobId(otp?.id ?? ''))).toBe('waiting')
  expect(first.cut).toBe(true)
  // A's 100 of its 2,000 (the most one tenant gets in a pass) and B's one.
  expect(first.claimed).toBe(101)
  const bEvents = await database.db
    .select({ type: messageEvents.type })
    .from(messageEvents)
    .where(eq(messageEvents.tenantId, b))
  expect(bEvents.map((event) => event.type)).toEqual(['queued'])
  // A had more rows than its share: the ones it was given wait behind its turns (none jump ahead).
  const unclaimed = await database.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.tenantId, a), isNull(outbox.publishedAt), isNull(outbox.parkedUntil)))
  expect(unclaimed).toHaveLength(2_000 - 100)

  // Drain A: each pass publishes what its slots and turns allow; slots are given back as jobs "finish".
  const key = laneParkKey('critical', a)
  const released = new Set<string>()
  const deadline = Date.now() + 60_000
  for (;;) {
    const queued = await database.db
      .select({ messageId: messageEvents.messageId })
      .from(messageEvents)
      .where(and(eq(messageEvents.tenantId, a), eq(messageEvents.type, 'queued')))
    if (queued.length >= flood.length || Date.now() > deadline) break
    for (const { messageId } of queued) {
      if (released.has(messageId)) continue
      released.add(messageId)
      await fairness.admission.release(key, sendJobId(messageId))
    }
    fairness.parking.unblock(key)
    await publishOutboxBatch(deps())
  }
  const queued = await database.db
    .select({ messageId: messageEvents.messageId })
    .from(messageEvents)
    .where(and(eq(messageEvents.tenantId, a), eq(messageEvents.type, 'queued')))
    .orderBy(asc(messageEvents.id))
  // Once each (at least once, and the stable job ids make it at most one job), in acceptance order.
  expect(queued.map((event) => event.messageId)).toEqual(flood.map((message) => message.id))
})
