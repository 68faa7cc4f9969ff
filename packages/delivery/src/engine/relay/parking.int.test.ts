import { createDatabase, type DatabaseHandle, messageEvents, outbox } from '@fairlane/db'
import { createLaneAdmission, laneParkKey } from '@fairlane/fairness'
import { createProducerConnection, type RedisClient, sendJobId } from '@fairlane/queue'
import { eventually, setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { inspectQueues, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { createParkingState, type TransactionalFairness } from './lane-parking'
import { type PublishDeps, publishOutboxBatch } from './publish-batch'

/**
 * The relay's side of transactional fairness, pass by pass: a tenant over its lane slots is parked in
 * PostgreSQL (not published), set aside so the next passes do not read its rows, and published again
 * in order once a slot comes back; another tenant's row goes straight through meanwhile.
 */
const test = setupTestEnvironment('parking')
let database: DatabaseHandle
let inspect: ReturnType<typeof inspectQueues>
let redis: RedisClient
let fairness: TransactionalFairness

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 5 })
  inspect = inspectQueues(test)
  redis = createProducerConnection(testRedisTarget(test), 'test-parking', testLogger())
  fairness = {
    admission: createLaneAdmission(redis, { prefix: `${test.queuePrefix}:` }),
    plan: { ratePerSec: 1_000, burst: 1_000 },
    slots: 5,
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
  addTimeoutMs: 2_000,
  skipIds: new Set(),
  logger: testLogger(),
  fairness,
})

it('parks a tenant over its slots, skips it while full, lets another through, and resumes in order', async () => {
  const a = await createTenant(database.db, 'Flooder')
  const b = await createTenant(database.db, 'Bystander')
  const flood = await seedQueuedMessages(database.db, { tenantId: a, count: 30, to: (i) => `a${i}@x.test` })

  const first = await publishOutboxBatch(deps())
  expect(first).toMatchObject({ claimed: 30, published: 5, parked: 25 })
  const parked = await database.db
    .select({ parkKey: outbox.parkKey, parkedUntil: outbox.parkedUntil, payload: outbox.payload })
    .from(outbox)
    .where(and(eq(outbox.tenantId, a), isNull(outbox.publishedAt), isNotNull(outbox.parkedUntil)))
    .orderBy(asc(outbox.parkedUntil), asc(outbox.id))
  expect(parked).toHaveLength(25)
  expect(parked.every((row) => row.parkKey === laneParkKey('critical', a))).toBe(true)
  // Their turns follow the order of acceptance.
  expect(parked.map((row) => row.payload.messageId)).toEqual(flood.slice(5).map((m) => m.id))
  // Each message says so: the published ones `queued`, the parked ones `deferred` until their turn.
  const events = await database.db
    .select({ messageId: messageEvents.messageId, type: messageEvents.type, detail: messageEvents.detail })
    .from(messageEvents)
    .where(eq(messageEvents.tenantId, a))
  const story = new Map(events.map((event) => [event.messageId, event]))
  expect(events).toHaveLength(30)
  for (const message of flood.slice(0, 5)) {
    expect(story.get(message.id)).toMatchObject({ type: 'queued', detail: { lane: 'critical' } })
  }
  for (const row of parked) {
    const event = story.get(row.payload.messageId as string)
    expect(event?.type).toBe('deferred')
    // The same instant as the row's turn (stored to the microsecond, told to the millisecond).
    expect(Math.abs(Number(event?.detail?.untilMs) - (row.parkedUntil?.getTime() ?? 0))).toBeLessThanOrEqual(
      1,
    )
  }

  // A is set aside: the next pass reads none of its rows, and B's code goes straight in.
  const [otp] = await seedQueuedMessages(database.db, { tenantId: b, to: () => 'b@x.test' })
  expect(await publishOutboxBatch(deps())).toMatchObject({ claimed: 1, published: 1, parked: 0 })
  expect(await inspect.lane('critical').getJobState(sendJobId(otp?.id ?? ''))).toBe('waiting')

  // Two of A's jobs finish and give their slots back: the next two parked rows go, in order.
  const key = laneParkKey('critical', a)
  for (const message of flood.slice(0, 2)) await fairness.admission.release(key, sendJobId(message.id))
  fairness.parking.unblock(key)
  await eventually(async () => (await publishOutboxBatch(deps())).published > 0, {
    what: "A's next rows published",
    timeoutMs: 5_000,
    intervalMs: 20,
  })
  for (const message of flood.slice(5, 7)) {
    expect(await inspect.lane('critical').getJobState(sendJobId(message.id))).not.toBe('unknown')
  }
  expect(await inspect.lane('critical').getJobState(sendJobId(flood[7]?.id ?? ''))).toBe('unknown')
})
