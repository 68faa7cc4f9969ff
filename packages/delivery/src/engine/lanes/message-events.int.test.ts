import { randomUUID } from 'node:crypto'
import type { Lane } from '@fairlane/core'
import { messages } from '@fairlane/db'
import { insertQueuedMessage } from '@fairlane/db/queries/accept-message'
import { listMessageEvents } from '@fairlane/db/queries/message-events'
import { suppressAddress } from '@fairlane/db/queries/suppressions'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedCampaign, setPlan } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * Every message's story as `message_events`, written along the real path (accept's statement →
 * relay or dispatch → pacer → lane worker → the sink): the events of each message, in order, with
 * what they carry.
 */
const test = setupTestEnvironment('message-events')
let sink: MailSink
let pipeline: TestPipeline
let tenantId: string

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
  tenantId = await createTenant(pipeline.database.db, 'Storyteller')
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

/** A message as `POST /api/v1/messages` writes it: the same statement (message, `accepted`, outbox, NOTIFY). */
async function accept(to: string, lane: Lane = 'critical'): Promise<string> {
  const id = randomUUID()
  await insertQueuedMessage(
    pipeline.database.db,
    {
      id,
      tenantId,
      lane,
      toAddress: to,
      subject: 'Your code',
      html: null,
      text: 'Your code is 123456',
      template: 'otp',
      variables: { code: '123456' },
      idempotencyKey: null,
      requestHash: 'hash',
      queuedAt: new Date(),
    },
    { v: 1, messageId: id, tenantId, lane, generation: 0 },
  )
  return id
}

async function statusOf(messageId: string) {
  const [row] = await pipeline.database.db
    .select({ status: messages.status })
    .from(messages)
    .where(eq(messages.id, messageId))
  return row?.status
}

async function eventsOf(messageId: string, owner = tenantId) {
  return listMessageEvents(pipeline.database.db, { tenantId: owner, messageId })
}

const typesOf = async (messageId: string, owner = tenantId) =>
  (await eventsOf(messageId, owner)).map((event) => event.type)

describe('message events', () => {
  it('tells a sent message as accepted → queued → sent, with the server’s reply and no address', async () => {
    const to = 'story@example.com'
    const id = await accept(to)
    await eventually(async () => (await statusOf(id)) === 'sent', { what: 'sent' })
    const events = await eventsOf(id)
    expect(events.map((event) => event.type)).toEqual(['accepted', 'queued', 'sent'])
    expect(events[0]?.detail).toEqual({ lane: 'critical' })
    expect(events[1]?.detail).toEqual({ lane: 'critical' })
    const response = String(events[2]?.detail?.response)
    expect(response).toMatch(/^250 /)
    expect(response).not.toContain(to)
    // In the order they happened, by time as well as by id.
    const times = events.map((event) => event.at.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // Another tenant reads none of them.
    expect(await eventsOf(id, randomUUID())).toEqual([])
  })

  it('tells a retried message: a retrying event per temporary failure, then sent', async () => {
    const to = 'greylisted-story@example.com'
    sink.faults.add({ match: to, reply: '451 4.7.1 try later', times: 2 })
    const id = await accept(to)
    await eventually(async () => (await statusOf(id)) === 'sent', {
      what: 'sent after retries',
      timeoutMs: 20_000,
    })
    const events = await eventsOf(id)
    expect(events.map((event) => event.type)).toEqual(['accepted', 'queued', 'retrying', 'retrying', 'sent'])
    expect(events[2]?.detail).toEqual({ code: 'deferred', attempt: 1 })
    expect(events[3]?.detail).toEqual({ code: 'deferred', attempt: 2 })
  })

  it('tells a permanent failure once: failed with its code and attempts', async () => {
    const to = 'nobody-story@example.com'
    sink.faults.add({ match: to, reply: '550 5.1.1 no such user' })
    const id = await accept(to)
    await eventually(async () => (await statusOf(id)) === 'failed', { what: 'failed', timeoutMs: 20_000 })
    // The dead letter's final-failure check (after the job failed) must not add a second `failed`.
    await eventually(
      async () =>
        (await pipeline.registry.metrics()).match(/fairlane_dead_lettered_total\{lane="critical"\} [1-9]/),
      {
        what: 'the dead letter',
        timeoutMs: 10_000,
      },
    )
    const events = await eventsOf(id)
    expect(events.map((event) => event.type)).toEqual(['accepted', 'queued', 'failed'])
    expect(events[2]?.detail).toEqual({ code: 'recipient_unknown', attempts: 1 })
  })

  it('tells a message to a suppressed address: suppressed at send, with the suppression’s reason', async () => {
    const to = 'suppressed-story@example.com'
    await suppressAddress(pipeline.database.db, { tenantId, email: to, reason: 'manual' })
    const id = await accept(to)
    await eventually(async () => (await statusOf(id)) === 'suppressed', { what: 'suppressed' })
    expect(await typesOf(id)).toEqual(['accepted', 'queued', 'suppressed'])
    expect((await eventsOf(id))[2]?.detail).toEqual({ reason: 'manual' })
    expect(sink.store.list({ to })).toEqual([])
  })

  it('tells each campaign message: accepted → queued → sent, or accepted → suppressed when left out', async () => {
    const { db } = pipeline.database
    const owner = await createTenant(db, 'Campaign stories')
    await setPlan(db, owner, { ratePerSec: 500, burst: 100 })
    const prefix = `story${Math.random().toString(36).slice(2, 6)}-`
    await suppressAddress(db, { tenantId: owner, email: `${prefix}3@example.com`, reason: 'hard-bounce' })
    const { campaignId } = await seedCampaign(db, { tenantId: owner, contacts: 12, prefix })
    await eventually(
      async () => {
        const [row] = await db.execute<{ status: string }>(
          sql`select status from campaigns where id = ${campaignId}`,
        )
        return row?.status === 'sent'
      },
      { what: 'campaign sent', timeoutMs: 20_000 },
    )
    const rows = await db
      .select({ id: messages.id, status: messages.status, to: messages.toAddress })
      .from(messages)
      .where(eq(messages.campaignId, campaignId))
    expect(rows).toHaveLength(12)
    for (const row of rows) {
      const events = await eventsOf(row.id, owner)
      expect(events[0]).toMatchObject({ type: 'accepted', detail: { lane: 'bulk', campaignId } })
      if (row.to === `${prefix}3@example.com`) {
        expect(row.status).toBe('suppressed')
        expect(events.map((event) => event.type)).toEqual(['accepted', 'suppressed'])
        expect(events[1]?.detail).toEqual({ reason: 'hard-bounce' })
      } else {
        expect(row.status).toBe('sent')
        expect(events.map((event) => event.type)).toEqual(['accepted', 'queued', 'sent'])
        expect(events[1]?.detail).toEqual({ lane: 'bulk' })
        expect(String(events[2]?.detail?.response)).toMatch(/^250 /)
      }
    }
  })
})
