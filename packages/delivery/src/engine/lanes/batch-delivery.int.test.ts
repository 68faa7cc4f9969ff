import { messageClaims, messageEvents, messages } from '@fairlane/db'
import { claimMessages, readUnfinishedMessages } from '@fairlane/db/queries/delivery'
import { dispatchCampaignBatch } from '@fairlane/db/queries/dispatch'
import type { MailSink } from '@fairlane/mailsink/sink'
import { DEAD_LETTER_QUEUE, deadLetterJobId, sendBatchJob, sendJobId } from '@fairlane/queue'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import type { Job } from 'bullmq'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages, setPlan } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'
import { createWorkerMetrics } from '../metrics'
import { createDeadLetters } from './dead-letters'

/**
 * Bulk jobs carrying batches (BULK_BATCH_SIZE=50): campaign → dispatch → pacer (batches) → bulk
 * lane → one held connection, one token take, one claim and one mark per batch → the real sink.
 */
const test = setupTestEnvironment('batch-delivery')
let sink: MailSink
let pipeline: TestPipeline
let inspect: ReturnType<typeof inspectQueues>

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    pacer: { highWater: 150, horizonMs: 1_000, batchSize: 50 },
  })
  inspect = inspectQueues(test)
})
afterAll(async () => {
  await pipeline?.stop()
  await inspect?.close()
  await sink?.close()
})

const db = () => pipeline.database.db

async function statuses(ids: readonly string[]) {
  const rows = await db()
    .select({ id: messages.id, status: messages.status })
    .from(messages)
    .where(inArray(messages.id, [...ids]))
  return new Map(rows.map((row) => [row.id, row.status]))
}

async function sentEvents(ids: readonly string[]) {
  return db()
    .select({ messageId: messageEvents.messageId })
    .from(messageEvents)
    .where(and(inArray(messageEvents.messageId, [...ids]), eq(messageEvents.type, 'sent')))
}

async function bulkJobsCompleted(): Promise<number> {
  const text = await pipeline.registry.metrics()
  const match = /fairlane_jobs_completed_total\{lane="bulk"\} (\d+)/.exec(text)
  return match ? Number(match[1]) : 0
}

/** Queued bulk rows without jobs, and one batch job carrying them, added by hand. */
async function seedBatch(tenantId: string, to: (index: number) => string, count: number) {
  const seeded = await seedQueuedMessages(db(), { tenantId, lane: 'bulk', count, to, publish: false })
  const job = sendBatchJob({
    tenantId,
    messages: seeded.map((message) => ({ messageId: message.id, generation: 0 })),
  })
  return { seeded, ids: seeded.map((message) => message.id), job }
}

describe('bulk batches', () => {
  it('sends a campaign of 120 as at most 3 jobs of up to 50: every row sent once, one sent event each', async () => {
    const tenantId = await createTenant(db(), 'Batch Co')
    await setPlan(db(), tenantId, { ratePerSec: 10_000, burst: 10_000 })
    const before = await bulkJobsCompleted()
    // Due in an hour, then dispatched by hand in one statement: the pacer finds all 120 in one tick.
    const { campaignId, prefix } = await seedCampaign(db(), {
      tenantId,
      contacts: 120,
      sendAt: new Date(Date.now() + 3_600_000),
    })
    await db().execute(sql`update campaigns set send_at = now() where id = ${campaignId}`)
    await dispatchCampaignBatch(db(), { campaignId, batchSize: 1_000 })
    const rows = await db()
      .select({ id: messages.id })
      .from(messages)
      .where(eq(messages.campaignId, campaignId))
    const ids = rows.map((row) => row.id)
    expect(ids).toHaveLength(120)
    await eventually(async () => [...(await statuses(ids)).values()].every((status) => status === 'sent'), {
      what: 'every row sent',
      timeoutMs: 20_000,
    })
    expect(sink.store.list().filter((mail) => mail.to.startsWith(prefix))).toHaveLength(120)
    expect(duplicateMessageIds(sink)).toEqual([])
    const events = await sentEvents(ids)
    expect(events).toHaveLength(120)
    expect(new Set(events.map((event) => event.messageId)).size).toBe(120)
    // 120 in batches of ≤ 50: 3 jobs (a pacer tick between dispatch and release could split one).
    await eventually(async () => (await bulkJobsCompleted()) - before >= 3, { what: 'jobs completed' })
    expect((await bulkJobsCompleted()) - before).toBeLessThanOrEqual(4)
  })

  it('fails and dead-letters only the permanently refused message of a batch; a transient one goes on alone and is sent', async () => {
    const tenantId = await createTenant(db(), 'Faults Co')
    const to = (index: number) => `faulty-${index}@example.com`
    sink.faults.add({ match: to(2), reply: '550 5.1.1 no such user', times: 1 })
    sink.faults.add({ match: to(4), reply: '451 4.7.1 try later', times: 1 })
    const { ids, job } = await seedBatch(tenantId, to, 6)
    await inspect.lane('bulk').add(job.name, job.data, job.opts)
    const refused = ids[2] as string
    const delayed = ids[4] as string
    await eventually(
      async () => {
        const now = await statuses(ids)
        return [...now].every(([id, status]) => status === (id === refused ? 'failed' : 'sent'))
      },
      { what: 'the batch settled: one failed, the rest sent', timeoutMs: 20_000 },
    )
    // The transient one was sent by its own job, after one failed try in the batch.
    const [retried] = await db().select().from(messages).where(eq(messages.id, delayed))
    expect(retried?.attempts).toBe(2)
    expect(sink.store.list({ to: to(4) })).toHaveLength(1)
    // The permanent one has a dead letter of its own, under its own job's id.
    const dead = await eventually(
      () => inspect.queues[DEAD_LETTER_QUEUE].getJob(deadLetterJobId(sendJobId(refused))),
      { what: 'the dead letter' },
    )
    expect(dead?.data).toMatchObject({ queue: 'bulk', messageId: refused, tenantId })
    expect(dead?.data.error).toContain('550 5.1.1')
    expect(sink.store.list({ to: to(2) })).toHaveLength(0)
    expect(await sentEvents(ids)).toHaveLength(5)
    expect(duplicateMessageIds(sink)).toEqual([])
  })

  it('sends what the bucket grants at once and the rest of the batch later, no attempt spent', async () => {
    const tenantId = await createTenant(db(), 'Slow Co')
    // 10/s, burst 5: the bucket keeps 1 back for the hand-off, so 4 go at once and the rest follow.
    await setPlan(db(), tenantId, { ratePerSec: 10, burst: 5 })
    const to = (index: number) => `slow-${index}@example.com`
    const { ids, job } = await seedBatch(tenantId, to, 12)
    await inspect.lane('bulk').add(job.name, job.data, job.opts)
    const startedAt = Date.now()
    await eventually(async () => [...(await statuses(ids)).values()].every((status) => status === 'sent'), {
      what: 'the whole batch sent',
      timeoutMs: 20_000,
    })
    // 12 at 10/s with 4 at once: about 0.8 s at the least.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(700)
    const rows = await db()
      .select({ attempts: messages.attempts })
      .from(messages)
      .where(inArray(messages.id, ids))
    // Each sent on its first real try: a message given back for a token does not count an attempt.
    expect(rows.map((row) => row.attempts)).toEqual(ids.map(() => 1))
    const deferred = await db()
      .select({ messageId: messageEvents.messageId })
      .from(messageEvents)
      .where(and(inArray(messageEvents.messageId, ids), eq(messageEvents.type, 'deferred')))
    expect(deferred.length).toBeGreaterThan(0)
    expect(duplicateMessageIds(sink)).toEqual([])
    expect(await sentEvents(ids)).toHaveLength(12)
  })

  it('a batch whose worker died mid-way: the marked rows are skipped, the rest wait for the lock and are sent once more', async () => {
    const tenantId = await createTenant(db(), 'Stalled Co')
    const to = (index: number) => `stalled-${index}@example.com`
    const { ids, job } = await seedBatch(tenantId, to, 6)
    // The dead worker's claim, a short one, of the whole batch; it had sent and marked the first
    // three when it died, and sent the fourth without marking it (the duplicate window).
    const claimed = await claimMessages(db(), { tenantIds: [tenantId], messageIds: ids, lockMs: 1_500 })
    expect(claimed.map((message) => message.id).sort()).toEqual([...ids].sort())
    const marked = ids.slice(0, 3)
    await db()
      .update(messages)
      .set({ status: 'sent', sentAt: sql`now()` })
      .where(inArray(messages.id, marked))
    await db().delete(messageClaims).where(inArray(messageClaims.messageId, marked))
    const claimedAt = Date.now()
    // BullMQ hands the stalled job to another worker: the same job, processed again.
    await inspect.lane('bulk').add(job.name, job.data, job.opts)
    const unmarked = ids.slice(3)
    await eventually(
      async () => unmarked.every((id) => sink.store.list({ to: to(ids.indexOf(id)) }).length === 1),
      { what: 'the unmarked ones sent', timeoutMs: 15_000 },
    )
    // Not before the dead worker's lock expired.
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(1_400)
    await eventually(async () => [...(await statuses(ids)).values()].every((status) => status === 'sent'), {
      what: 'every row sent',
    })
    // The marked ones were never sent again; the unmarked ones exactly once by the second run.
    for (const index of [0, 1, 2]) expect(sink.store.list({ to: to(index) })).toHaveLength(0)
    for (const index of [3, 4, 5]) expect(sink.store.list({ to: to(index) })).toHaveLength(1)
    expect(await sentEvents(unmarked)).toHaveLength(3)
  })

  it('one job of several tenants’ first turns: each claimed and paced as its own tenant’s, a failure dead-lettered under its own tenant', async () => {
    const names = ['First A', 'First B', 'First C', 'First D']
    const [a, b, c, d] = (await Promise.all(names.map((name) => createTenant(db(), name)))) as string[] as [
      string,
      string,
      string,
      string,
    ]
    await setPlan(db(), a, { ratePerSec: 1_000, burst: 1_000 })
    await setPlan(db(), b, { ratePerSec: 1_000, burst: 1_000 })
    // C's bucket holds one token: its second message waits for the next, in the job.
    await setPlan(db(), c, { ratePerSec: 2, burst: 1 })
    const to = (tenant: string) => (index: number) => `first-${tenant}-${index}@example.com`
    sink.faults.add({ match: to('b')(0), reply: '550 5.1.1 no such user', times: 1 })
    const seed = async (tenantId: string, letter: string, count: number) =>
      (await seedQueuedMessages(db(), { tenantId, lane: 'bulk', count, to: to(letter), publish: false })).map(
        (message) => message.id,
      )
    const [[ma], [mb], [mc, mc2], [md]] = (await Promise.all([
      seed(a, 'a', 1),
      seed(b, 'b', 1),
      seed(c, 'c', 2),
      seed(d, 'd', 1),
    ])) as [[string], [string], [string, string], [string]]
    // D's message named as A's: a job can claim a message only under its own tenant.
    const job = sendBatchJob({
      tenantId: a,
      messages: [
        { messageId: ma, generation: 0, tenantId: a },
        { messageId: mb, generation: 0, tenantId: b },
        { messageId: mc, generation: 0, tenantId: c },
        { messageId: mc2, generation: 0, tenantId: c },
        { messageId: md, generation: 0, tenantId: a },
      ],
      fresh: true,
    })
    expect(job.data.v).toBe(2)
    await inspect.lane('bulk').add(job.name, job.data, job.opts)
    const settled = { [ma]: 'sent', [mb]: 'failed', [mc]: 'sent', [mc2]: 'sent' }
    await eventually(
      async () => {
        const now = await statuses(Object.keys(settled))
        return Object.entries(settled).every(([id, status]) => now.get(id) === status)
      },
      { what: 'A’s and C’s sent, B’s failed', timeoutMs: 15_000 },
    )
    // D's was left as it was, never claimed: the job had judged it before its first send.
    expect((await statuses([md])).get(md)).toBe('queued')
    for (const address of [to('a')(0), to('c')(0), to('c')(1)]) {
      expect(sink.store.list({ to: address })).toHaveLength(1)
    }
    expect(sink.store.list({ to: to('d')(0) })).toHaveLength(0)
    // C's second waited for C's own bucket (a deferral, no attempt spent); A's and C's first did not.
    const deferred = await db()
      .select({ messageId: messageEvents.messageId })
      .from(messageEvents)
      .where(and(inArray(messageEvents.messageId, [ma, mc, mc2]), eq(messageEvents.type, 'deferred')))
    expect(new Set(deferred.map((event) => event.messageId))).toEqual(new Set([mc2]))
    const [sentC] = await db()
      .select({ attempts: messages.attempts })
      .from(messages)
      .where(eq(messages.id, mc2))
    expect(sentC?.attempts).toBe(1)
    const dead = await eventually(
      () => inspect.queues[DEAD_LETTER_QUEUE].getJob(deadLetterJobId(sendJobId(mb))),
      { what: 'B’s dead letter' },
    )
    expect(dead?.data).toMatchObject({ queue: 'bulk', messageId: mb, tenantId: b })
    expect(duplicateMessageIds(sink)).toEqual([])
  })

  it('a batch job that failed for good: each message it had yet to send goes on as its own job and is sent once', async () => {
    const tenantId = await createTenant(db(), 'Failed Batch Co')
    const to = (index: number) => `orphan-${index}@example.com`
    const { ids, job } = await seedBatch(tenantId, to, 4)
    // The first was sent before the batch gave up; the others still wait (one at a later generation).
    await db()
      .update(messages)
      .set({ status: 'sent', sentAt: sql`now()` })
      .where(eq(messages.id, ids[0] as string))
    await db()
      .update(messages)
      .set({ generation: 2 })
      .where(eq(messages.id, ids[3] as string))
    const deadLetters = createDeadLetters({
      db: db(),
      queue: inspect.queues[DEAD_LETTER_QUEUE],
      logger: testLogger(),
      metrics: createWorkerMetrics(new Registry()),
      batches: {
        unfinished: (input) => readUnfinishedMessages(db(), input),
        handOff: async (_lane, jobs) => {
          await inspect.lane('bulk').addBulk([...jobs])
        },
      },
    })
    const failed = {
      id: job.opts.jobId,
      name: job.name,
      data: job.data,
      attemptsMade: 15,
      opts: { attempts: 15 },
    } as unknown as Job
    deadLetters.onFailed('bulk', failed, new Error('connect ECONNREFUSED 127.0.0.1:5432'))
    await deadLetters.drain()
    await eventually(async () => [...(await statuses(ids)).values()].every((status) => status === 'sent'), {
      what: 'every row sent',
      timeoutMs: 15_000,
    })
    // Sent by their own jobs at their generation, not republished by the sweeper (which bumps it).
    const rows = await db()
      .select({ id: messages.id, generation: messages.generation })
      .from(messages)
      .where(inArray(messages.id, ids))
    expect(new Map(rows.map((row) => [row.id, row.generation]))).toEqual(
      new Map(ids.map((id, index) => [id, index === 3 ? 2 : 0])),
    )
    expect(sink.store.list({ to: to(0) })).toHaveLength(0)
    for (const index of [1, 2, 3]) expect(sink.store.list({ to: to(index) })).toHaveLength(1)
    expect(await sentEvents(ids.slice(1))).toHaveLength(3)
    // Not failed mail: no dead letter for any of them.
    for (const id of ids) {
      expect(await inspect.queues[DEAD_LETTER_QUEUE].getJob(deadLetterJobId(sendJobId(id)))).toBeUndefined()
    }
  })
})
