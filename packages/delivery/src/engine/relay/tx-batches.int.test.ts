import { messageEvents, messages } from '@fairlane/db'
import { createLaneAdmission, type LaneAdmission, laneParkKey } from '@fairlane/fairness'
import type { MailSink } from '@fairlane/mailsink/sink'
import {
  createProducerConnection,
  DEAD_LETTER_QUEUE,
  deadLetterJobId,
  type RedisClient,
  sendBatchJobId,
  sendJobId,
} from '@fairlane/queue'
import { eventually, setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { asc, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * Transactional mail batched under load (TX_BATCH_SIZE): API rows of one tenant on the default lane →
 * outbox → relay (admission per message, then batch jobs of up to N) → the default lane's batch
 * processor (`sendBatch`: one claim, one connection, one token take, one mark) → the real sink.
 */
const TX_BATCH_SIZE = 20
const test = setupTestEnvironment('tx-batches')
let sink: MailSink
let pipeline: TestPipeline
let inspect: ReturnType<typeof inspectQueues>
let redis: RedisClient
let admission: LaneAdmission
/** Every job id the relay added, in order. */
const relayJobIds: string[] = []

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    // Slots as many as a batch: a batch holds one per message, so 60 rows go 20 at a time.
    transactionalLanes: { slots: 20, slotTtlMs: 30_000, horizonMs: 1_000, batchSize: TX_BATCH_SIZE },
    relayHooks: { afterAddBulk: (_published, jobIds) => void relayJobIds.push(...jobIds) },
  })
  inspect = inspectQueues(test)
  redis = createProducerConnection(testRedisTarget(test), 'test-tx-batches', testLogger())
  admission = createLaneAdmission(redis, { prefix: `${test.queuePrefix}:` })
})
afterAll(async () => {
  await pipeline?.stop()
  await inspect?.close()
  await redis?.quit()
  await sink?.close()
})

const db = () => pipeline.database.db

async function statuses(ids: readonly string[]) {
  const rows = await db()
    .select({ id: messages.id, status: messages.status, attempts: messages.attempts })
    .from(messages)
    .where(inArray(messages.id, [...ids]))
  return new Map(rows.map((row) => [row.id, row]))
}

async function allSettled(ids: readonly string[], done: (id: string, status: string) => boolean) {
  await eventually(async () => [...(await statuses(ids))].every(([id, row]) => done(id, row.status)), {
    what: 'every message settled',
    timeoutMs: 45_000,
  })
}

/** Each message's events, oldest first. */
async function eventTypes(ids: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await db()
    .select({ messageId: messageEvents.messageId, type: messageEvents.type })
    .from(messageEvents)
    .where(inArray(messageEvents.messageId, [...ids]))
    .orderBy(asc(messageEvents.at), asc(messageEvents.id))
  const story = new Map<string, string[]>(ids.map((id) => [id, []]))
  for (const row of rows) story.get(row.messageId)?.push(row.type)
  return story
}

/** The relay's jobs that carry (batch: first) one of these messages. */
function jobsOf(ids: readonly string[]): string[] {
  const own = new Set(ids.flatMap((id) => [sendJobId(id), sendBatchJobId(id)]))
  return relayJobIds.filter((jobId) => own.has(jobId))
}

describe('transactional batches on the default lane', () => {
  it('publishes 60 rows of one tenant accepted at once in at most ceil(60/N)+1 jobs: each sent once, events in order', async () => {
    const tenantId = await createTenant(db(), 'Busy Receipts')
    const to = (index: number) => `receipt-${index}@example.com`
    const seeded = await seedQueuedMessages(db(), { tenantId, lane: 'default', count: 60, to })
    const ids = seeded.map((message) => message.id)
    await allSettled(ids, (_id, status) => status === 'sent')

    // One delivery each, on its first try.
    expect(sink.store.list().filter((mail) => mail.to.startsWith('receipt-'))).toHaveLength(60)
    expect(duplicateMessageIds(sink)).toEqual([])
    expect([...(await statuses(ids)).values()].map((row) => row.attempts)).toEqual(ids.map(() => 1))
    // Batches, each carrying up to N: a job id per batch (its first message's), none per message.
    const jobs = jobsOf(ids)
    expect(jobs.length).toBeLessThanOrEqual(Math.ceil(60 / TX_BATCH_SIZE) + 1)
    expect(jobs[0]).toBe(sendBatchJobId(ids[0] as string))
    // Each message: queued once, then sent once (a row parked behind a full batch says so first).
    for (const [id, types] of await eventTypes(ids)) {
      const story = types.filter((type) => type !== 'deferred')
      expect({ id, story }).toEqual({ id, story: ['queued', 'sent'] })
      expect(types.at(-1)).toBe('sent')
    }
    // The batches gave their messages' slots back: nothing of the tenant's is held in the lane.
    const held = await admission.heldSlots(laneParkKey('default', tenantId))
    expect(held).toEqual([])
  })

  it('publishes a lone message as its own job, at once', async () => {
    const tenantId = await createTenant(db(), 'Quiet Receipts')
    const [lone] = await seedQueuedMessages(db(), { tenantId, lane: 'default', to: () => 'lone@example.com' })
    const id = lone?.id as string
    await allSettled([id], (_id, status) => status === 'sent')
    expect(jobsOf([id])).toEqual([sendJobId(id)])
    expect(sink.store.list({ to: 'lone@example.com' })).toHaveLength(1)
  })

  it('fails only the message a 550 refuses inside a batch, with its own dead letter', async () => {
    const tenantId = await createTenant(db(), 'Faulty Receipts')
    const to = (index: number) => `tx-faulty-${index}@example.com`
    sink.faults.add({ match: to(2), reply: '550 5.1.1 no such user', times: 1 })
    const seeded = await seedQueuedMessages(db(), { tenantId, lane: 'default', count: 6, to })
    const ids = seeded.map((message) => message.id)
    const refused = ids[2] as string
    await allSettled(ids, (id, status) => status === (id === refused ? 'failed' : 'sent'))
    expect(jobsOf(ids)).toEqual([sendBatchJobId(ids[0] as string)])
    for (const index of [0, 1, 3, 4, 5]) expect(sink.store.list({ to: to(index) })).toHaveLength(1)
    expect(sink.store.list({ to: to(2) })).toHaveLength(0)
    const dead = await eventually(
      () => inspect.queues[DEAD_LETTER_QUEUE].getJob(deadLetterJobId(sendJobId(refused))),
      { what: 'the dead letter' },
    )
    expect(dead?.data).toMatchObject({ queue: 'default', messageId: refused, tenantId })
    expect(dead?.data.error).toContain('550 5.1.1')
    const story = await eventTypes(ids)
    expect(story.get(refused)).toEqual(['queued', 'failed'])
    for (const id of ids.filter((id) => id !== refused)) expect(story.get(id)).toEqual(['queued', 'sent'])
  })
})
