import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import {
  createDatabase,
  type DatabaseHandle,
  messageClaims,
  messageEvents,
  messages,
  outbox,
} from '@fairlane/db'
import { laneJobOptions, queuePrefix, SEND_JOB_NAME, sendBatchJob, sendJobId } from '@fairlane/queue'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { Queue, UnrecoverableError, Worker } from 'bullmq'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { claimForTest, readMessageWithClaim } from '../../testing/claims'
import { inspectQueues, testLogger } from '../../testing/pipeline'
import { createTenant, type SeedMessage, seedQueuedMessages } from '../../testing/seed'
import { type SweepDeps, sweepOnce } from './sweep-once'

const test = setupTestEnvironment('sweeper')
let database: DatabaseHandle
let inspect: ReturnType<typeof inspectQueues>
let tenantId: string

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 10 })
  inspect = inspectQueues(test)
  tenantId = await createTenant(database.db)
})
beforeEach(async () => {
  // Each case starts from no in-flight messages, so one case's leftovers are never swept by the next.
  await database.db.update(messages).set({ status: 'sent' })
  await database.db.delete(messageClaims)
})
afterAll(async () => {
  await inspect?.close()
  await database?.close()
})

function deps(overrides: Partial<SweepDeps> = {}): SweepDeps {
  return {
    db: database.db,
    lanes: inspect.queues.lanes,
    queuedForMs: 1_000,
    batchSize: 500,
    logger: testLogger(),
    ...overrides,
  }
}

/** Messages whose outbox rows were published long ago (as far as PostgreSQL knows). */
async function publishedMessages(count: number, to: string): Promise<SeedMessage[]> {
  const seeded = await seedQueuedMessages(database.db, {
    tenantId,
    count,
    to: (i) => `${to}${i}@example.com`,
  })
  await database.db.update(outbox).set({ publishedAt: sql`now()` })
  await database.db
    .update(messages)
    .set({ queuedAt: sql`now() - interval '1 minute'` })
    .where(eq(messages.status, 'queued'))
  return seeded
}

async function row(messageId: string) {
  return readMessageWithClaim(database.db, messageId)
}

async function addJob(message: SeedMessage, generation = 0) {
  await inspect
    .lane('critical')
    .add(
      SEND_JOB_NAME,
      { v: 1, messageId: message.id, tenantId },
      { ...laneJobOptions('critical'), jobId: sendJobId(message.id, generation), delay: 60_000 },
    )
}

describe('sweeper', () => {
  it('republishes a queued message whose job Redis lost, under the next generation', async () => {
    const [lost, live] = await publishedMessages(2, 'lost')
    if (!lost || !live) throw new Error('seed failed')
    await addJob(live)
    expect(await sweepOnce(deps())).toEqual({ leader: true, examined: 2, republished: 1, recorded: 0 })
    expect(await row(lost.id)).toMatchObject({ status: 'queued', generation: 1 })
    expect(await row(live.id)).toMatchObject({ status: 'queued', generation: 0 })
    const events = await database.db.select().from(outbox).where(sql`${outbox.publishedAt} is null`)
    expect(events.map((event) => event.payload)).toEqual([
      { v: 1, messageId: lost.id, tenantId, lane: 'critical', generation: 1 },
    ])
    // Its new outbox row is pending: the next pass leaves it to the relay.
    expect((await sweepOnce(deps())).republished).toBe(0)
  })

  // Bulk batches come from the pacer, default-lane batches from the relay (TX_BATCH_SIZE).
  it.each(['bulk', 'default'] as const)(
    'leaves %s messages that wait inside a live batch job alone, pass after pass',
    async (lane) => {
      const seeded = await seedQueuedMessages(database.db, {
        tenantId,
        lane,
        count: 3,
        to: (i) => `batched-${lane}${i}@example.com`,
        publish: false,
      })
      await database.db
        .update(messages)
        .set({ queuedAt: sql`now() - interval '1 minute'` })
        .where(eq(messages.status, 'queued'))
      const job = sendBatchJob({
        lane,
        tenantId,
        messages: seeded.map((message) => ({ messageId: message.id, generation: 0 })),
      })
      // Delayed (a batch waiting for its tokens): live, though none of its messages has a job of its own.
      await inspect.lane(lane).add(job.name, job.data, { ...job.opts, delay: 60_000 })
      for (let pass = 0; pass < 2; pass++) {
        const result = await sweepOnce(deps())
        expect(result).toMatchObject({ examined: 3, republished: 0 })
      }
      for (const message of seeded)
        expect(await row(message.id)).toMatchObject({ status: 'queued', generation: 0 })
      // Without the lane's shards to look into, the same messages read as having no job.
      const blind = await sweepOnce(deps({ lanes: { queueFor: inspect.queues.lanes.queueFor } }))
      expect(blind.republished).toBe(3)
      await inspect.lane(lane).obliterate({ force: true })
    },
  )

  it('leaves recent queued messages and ones with an unpublished outbox row alone', async () => {
    const [recent] = await seedQueuedMessages(database.db, { tenantId, to: () => 'recent@example.com' })
    const [waiting] = await seedQueuedMessages(database.db, { tenantId, to: () => 'waiting@example.com' })
    await database.db
      .update(messages)
      .set({ queuedAt: sql`now() - interval '1 minute'` })
      .where(eq(messages.id, waiting?.id ?? ''))
    await sweepOnce(deps({ queuedForMs: 30_000 }))
    expect(await row(recent?.id ?? '')).toMatchObject({ generation: 0 })
    expect(await row(waiting?.id ?? '')).toMatchObject({ generation: 0 })
  })

  it('makes an expired claim with no live job claimable again, and leaves a live claim alone', async () => {
    const [expired, held] = await publishedMessages(2, 'claim')
    if (!expired || !held) throw new Error('seed failed')
    await claimForTest(database.db, expired.id, { lockedUntil: sql`now() - interval '1 second'` })
    await claimForTest(database.db, held.id, { lockedUntil: sql`now() + interval '1 minute'` })
    expect((await sweepOnce(deps())).republished).toBe(1)
    expect(await row(expired.id)).toMatchObject({
      status: 'queued',
      generation: 1,
      lockToken: null,
      lockedUntil: null,
    })
    expect(await row(held.id)).toMatchObject({ status: 'sending', generation: 0 })
  })

  it('treats a failed or completed job as gone, but not a delayed one', async () => {
    const [failed, completed, delayed] = await publishedMessages(3, 'states')
    if (!failed || !completed || !delayed) throw new Error('seed failed')
    await addJob(delayed)
    for (const message of [failed, completed]) {
      await inspect
        .lane('critical')
        .add(
          SEND_JOB_NAME,
          { v: 1, messageId: message.id, tenantId },
          { jobId: sendJobId(message.id), attempts: 1 },
        )
    }
    const worker = new Worker(
      'critical',
      async (job) => {
        if (job.data.messageId === failed.id) throw new UnrecoverableError('gone for good')
      },
      { connection: { url: test.redisUrl }, prefix: queuePrefix(test.queuePrefix, 'critical') },
    )
    try {
      await eventually(
        async () =>
          (await inspect.lane('critical').getJobState(sendJobId(failed.id))) === 'failed' &&
          (await inspect.lane('critical').getJobState(sendJobId(completed.id))) === 'completed',
        { what: 'jobs finished' },
      )
    } finally {
      await worker.close()
    }
    expect((await sweepOnce(deps())).republished).toBe(2)
    expect(await row(failed.id)).toMatchObject({ generation: 1 })
    expect(await row(completed.id)).toMatchObject({ generation: 1 })
    expect(await row(delayed.id)).toMatchObject({ generation: 0 })
  })

  it('records as sent, never republishes, a message the server accepted whose job failed for good before recording it', async () => {
    const [accepted, plain] = await publishedMessages(2, 'accepted')
    if (!accepted || !plain) throw new Error('seed failed')
    // Both `sending` under a claim that expired; the server accepted `accepted` under its claim, and
    // marking it sent failed, so its job kept that claim (what the send processor writes) before failing.
    const acceptedToken = randomUUID()
    for (const [message, lockToken] of [
      [accepted, acceptedToken],
      [plain, randomUUID()],
    ] as const) {
      await claimForTest(database.db, message.id, {
        lockToken,
        lockedUntil: sql`now() - interval '1 second'`,
      })
    }
    const lane = inspect.lane('critical')
    await lane.add(
      SEND_JOB_NAME,
      {
        v: 1,
        messageId: accepted.id,
        tenantId,
        acceptedLockToken: acceptedToken,
        acceptedResponse: '250 2.0.0 OK queued as 7F3A',
      },
      { jobId: sendJobId(accepted.id), attempts: 1 },
    )
    await lane.add(
      SEND_JOB_NAME,
      { v: 1, messageId: plain.id, tenantId },
      { jobId: sendJobId(plain.id), attempts: 1 },
    )
    const worker = new Worker(
      'critical',
      async () => {
        throw new UnrecoverableError('still cannot record')
      },
      { connection: { url: test.redisUrl }, prefix: queuePrefix(test.queuePrefix, 'critical') },
    )
    try {
      await eventually(
        async () =>
          (await lane.getJobState(sendJobId(accepted.id))) === 'failed' &&
          (await lane.getJobState(sendJobId(plain.id))) === 'failed',
        { what: 'both jobs failed for good' },
      )
    } finally {
      await worker.close()
    }

    expect(await sweepOnce(deps())).toEqual({ leader: true, examined: 2, republished: 1, recorded: 1 })
    expect(await row(accepted.id)).toMatchObject({
      status: 'sent',
      generation: 0,
      lockToken: null,
      lockedUntil: null,
      sentAt: expect.any(Date),
    })
    const events = await database.db
      .select({ type: messageEvents.type, detail: messageEvents.detail })
      .from(messageEvents)
      .where(and(eq(messageEvents.messageId, accepted.id), eq(messageEvents.type, 'sent')))
    expect(events).toEqual([
      { type: 'sent', detail: { response: '250 2.0.0 OK queued as 7F3A', recordedBy: 'sweeper' } },
    ])
    // The other failed job held no accepted send: republished as before.
    expect(await row(plain.id)).toMatchObject({ status: 'queued', generation: 1 })
    const published = await database.db.select().from(outbox).where(sql`${outbox.publishedAt} is null`)
    expect(published.map((event) => (event.payload as { messageId: string }).messageId)).toEqual([plain.id])
    expect(await sweepOnce(deps())).toMatchObject({ recorded: 0, republished: 0 })
  })

  it('runs one pass at a time across processes', async () => {
    await publishedMessages(3, 'leader')
    const results = await Promise.all([sweepOnce(deps()), sweepOnce(deps()), sweepOnce(deps())])
    expect(results.filter((result) => result.leader).length).toBeGreaterThanOrEqual(1)
    expect(results.reduce((sum, result) => sum + result.republished, 0)).toBe(3)
  })

  it('holds no row lock or transaction while Redis does not answer, and republishes nothing', async () => {
    const [stuck] = await publishedMessages(1, 'outage')
    if (!stuck) throw new Error('seed failed')
    // A Redis that is down: ioredis queues the command and reconnects for ever, so only the
    // sweeper's own timeout ends the question.
    const port = await closedPort()
    const unreachable = new Queue('critical', {
      connection: { host: '127.0.0.1', port, retryStrategy: () => 200 },
      prefix: test.queuePrefix,
    })
    unreachable.on('error', () => {})
    try {
      const pass = sweepOnce(
        deps({
          redisTimeoutMs: 1_500,
          lanes: { queueFor: () => unreachable },
        }),
      )
      const outcome = pass.then(
        () => 'resolved',
        (error: Error) => error.message,
      )
      // While the pass waits on Redis, the row is free: a claim would not be kept waiting.
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`set local lock_timeout = '500ms'`)
        await tx.execute(sql`select id from ${messages} where id = ${stuck.id} for update nowait`)
      })
      expect(await outcome).toMatch(/Redis did not answer the sweeper's job state .* within 1500 ms/)
      expect(await row(stuck.id)).toMatchObject({ status: 'queued', generation: 0 })
    } finally {
      await unreachable.close()
    }
  })
})

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}
