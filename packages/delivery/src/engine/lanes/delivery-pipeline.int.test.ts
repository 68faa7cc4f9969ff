import { MESSAGE_PUBLISH_TOPIC } from '@fairlane/core'
import { messageClaims, messages, outbox, suppressions } from '@fairlane/db'
import { insertMessagePublishEvent, notifyOutbox } from '@fairlane/db/queries/outbox'
import type { MailSink } from '@fairlane/mailsink/sink'
import { DEAD_LETTER_QUEUE, deadLetterJobId, sendJobId } from '@fairlane/queue'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readMessageWithClaim } from '../../testing/claims'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/** API-shaped rows → outbox → relay → lane worker → SMTP (the real sink), all real, in this process. */
const test = setupTestEnvironment('pipeline')
let sink: MailSink
let pipeline: TestPipeline
let inspect: ReturnType<typeof inspectQueues>
let tenantId: string

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
  inspect = inspectQueues(test)
  tenantId = await createTenant(pipeline.database.db)
})
afterAll(async () => {
  await pipeline?.stop()
  await inspect?.close()
  await sink?.close()
})

async function seedOne(to: string, lane: 'critical' | 'default' = 'critical') {
  const [message] = await seedQueuedMessages(pipeline.database.db, { tenantId, lane, to: () => to })
  if (!message) throw new Error('seed failed')
  return message
}

async function row(messageId: string) {
  return readMessageWithClaim(pipeline.database.db, messageId)
}

const delivered = (to: string) => sink.store.list({ to })

describe('delivery pipeline', () => {
  it('delivers an OTP through outbox, relay and the critical lane with its deterministic Message-ID', async () => {
    const message = await seedOne('otp@example.com')
    const [mail] = await eventually(
      () => delivered('otp@example.com').length === 1 && delivered('otp@example.com'),
      {
        what: 'the OTP at the sink',
      },
    )
    expect(mail?.messageId).toBe(`<${message.id}@fairlane.test>`)
    expect(mail?.text).toContain('Your code is')
    expect(mail?.headers['auto-submitted']).toBe('auto-generated')
    await eventually(async () => (await row(message.id))?.status === 'sent', { what: 'row sent' })
    expect(await row(message.id)).toMatchObject({ attempts: 1, lockToken: null })
    expect((await row(message.id))?.sentAt).toBeInstanceOf(Date)
    const metrics = await pipeline.registry.metrics()
    expect(metrics).toMatch(/fairlane_jobs_completed_total\{lane="critical"\} [1-9]/)
    expect(metrics).toMatch(/fairlane_send_latency_seconds_count\{lane="critical"\} [1-9]/)
  })

  it('delivers default-lane mail on its own worker', async () => {
    const message = await seedOne('receipt@example.com', 'default')
    await eventually(async () => (await row(message.id))?.status === 'sent', { what: 'default lane sent' })
    expect(delivered('receipt@example.com')).toHaveLength(1)
  })

  it('rides out 451 twice: one delivery after three attempts', async () => {
    sink.faults.add({ match: 'greylisted@example.com', reply: '451 4.7.1 try later', times: 2 })
    const message = await seedOne('greylisted@example.com')
    await eventually(async () => (await row(message.id))?.status === 'sent', {
      what: 'sent after retries',
      timeoutMs: 20_000,
    })
    expect(delivered('greylisted@example.com')).toHaveLength(1)
    expect((await row(message.id))?.attempts).toBeGreaterThanOrEqual(3)
    expect((await row(message.id))?.lastError).toContain('451 4.7.1')
  })

  it('keeps addresses out of what Redis stores about a failed attempt; the raw reply stays in PostgreSQL', async () => {
    const to = 'quoted@example.com'
    sink.faults.add({
      match: to,
      reply: `451 4.7.1 <${to}>: mailbox busy, relay mx7.internal.example`,
    })
    const message = await seedOne(to)
    // Read while the job waits for its retry: a completed send job is deleted from Redis.
    const job = await eventually(
      async () => {
        const found = await inspect.lane('critical').getJob(sendJobId(message.id))
        return found?.failedReason?.includes('451 4.7.1') ? found : undefined
      },
      { what: 'the job after its failed attempt', timeoutMs: 20_000 },
    )
    sink.faults.clear()
    await eventually(async () => (await row(message.id))?.status === 'sent', {
      what: 'sent after the retry',
      timeoutMs: 20_000,
    })
    expect(job?.stacktrace?.length ?? 0).toBeGreaterThan(0)
    expect(JSON.stringify({ reason: job?.failedReason, stack: job?.stacktrace })).not.toContain(to)
    expect(await row(message.id)).toMatchObject({
      lastError: expect.stringContaining(`<${to}>`),
      lastErrorCode: 'deferred',
    })
  })

  it('dead-letters a 550 5.1.1 after one attempt, suppresses the address, and a replay delivers once', async () => {
    const to = 'gone@example.com'
    sink.faults.add({ match: to, reply: '550 5.1.1 no such user' })
    const message = await seedOne(to)
    const laneJobId = sendJobId(message.id)
    const deadLetters = inspect.queues[DEAD_LETTER_QUEUE]
    const dead = await eventually(() => deadLetters.getJob(deadLetterJobId(laneJobId)), {
      what: 'the dead letter',
      timeoutMs: 20_000,
    })
    expect(dead.data).toEqual({
      v: 1,
      queue: 'critical',
      jobId: laneJobId,
      messageId: message.id,
      tenantId,
      error: expect.stringContaining('550 5.1.1'),
      attempts: 1,
      failedAt: expect.any(String),
    })
    expect(JSON.stringify(dead.data)).not.toContain('@')
    const failed = await row(message.id)
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: expect.stringContaining('550 5.1.1'),
      lastErrorCode: 'recipient_unknown',
    })
    expect(failed?.failedAt).toBeInstanceOf(Date)
    const suppressed = await pipeline.database.db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.tenantId, tenantId), eq(suppressions.email, to)))
    expect(suppressed).toHaveLength(1)
    expect(delivered(to)).toHaveLength(0)
    expect(await pipeline.registry.metrics()).toMatch(/fairlane_dead_lettered_total\{lane="critical"\} 1/)

    // The admin's replay, as the web side does it: queued under the next generation, a new outbox row.
    sink.faults.clear()
    await pipeline.database.db.transaction(async (tx) => {
      await tx
        .update(messages)
        .set({ status: 'queued', generation: sql`${messages.generation} + 1`, queuedAt: new Date() })
        .where(eq(messages.id, message.id))
      await insertMessagePublishEvent(tx, {
        v: 1,
        messageId: message.id,
        tenantId,
        lane: 'critical',
        generation: 1,
      })
      await notifyOutbox(tx)
    })
    await eventually(async () => (await row(message.id))?.status === 'sent', { what: 'replay sent' })
    expect(delivered(to)).toHaveLength(1)
    expect(delivered(to)[0]?.messageId).toBe(`<${message.id}@fairlane.test>`)
  })

  it('keeps the claim when the reply to DATA is lost: one delivery, a counted unknown outcome, no second copy inside the lock window', async () => {
    const to = 'lost-reply@example.com'
    // The sink stores the message, then drops the connection without answering.
    sink.faults.add({ match: to, dropAfterData: true, times: 1 })
    const message = await seedOne(to)
    await eventually(
      async () =>
        /fairlane_send_outcome_unknown_total\{lane="critical"\} 1\b/.test(await pipeline.registry.metrics()),
      { what: 'the counted unknown outcome', timeoutMs: 20_000 },
    )
    expect(delivered(to)).toHaveLength(1)
    const kept = await row(message.id)
    expect(kept).toMatchObject({ status: 'sending', lastErrorCode: 'outcome_unknown' })
    expect(kept?.lockToken).not.toBeNull()

    // Until the claim expires (by the database's clock) the retries are refused: still one copy.
    const lockExpired = async () => {
      const [state] = await pipeline.database.db
        .select({ expired: sql<boolean>`${messageClaims.lockedUntil} < now()` })
        .from(messageClaims)
        .where(eq(messageClaims.messageId, message.id))
      return state?.expired === true
    }
    await eventually(
      async () => {
        const expired = await lockExpired()
        expect(delivered(to)).toHaveLength(1)
        return expired
      },
      { what: 'the kept claim to expire', timeoutMs: 20_000, intervalMs: 100 },
    )
    expect(delivered(to)).toHaveLength(1)

    // After the window the retry may send again, under the same Message-ID for the receiver to drop.
    await eventually(async () => (await row(message.id))?.status === 'sent', {
      what: 'sent after the lock window',
      timeoutMs: 20_000,
    })
    expect(delivered(to).map((mail) => mail.messageId)).toEqual([
      `<${message.id}@fairlane.test>`,
      `<${message.id}@fairlane.test>`,
    ])
  })

  it('never resends nor dead-letters a message the server accepted when marking it sent keeps failing', async () => {
    const to = 'unrecorded@example.com'
    const { db } = pipeline.database
    // A real database fault, for this recipient only: every attempt to mark it sent is refused.
    await db.execute(sql`
      create or replace function test_refuse_sent() returns trigger language plpgsql as $$
      begin
        if new.status = 'sent' and new.to_address = 'unrecorded@example.com' then
          raise exception 'simulated outage while recording';
        end if;
        return new;
      end $$`)
    await db.execute(sql`create trigger test_refuse_sent before update on messages
      for each row execute function test_refuse_sent()`)
    try {
      const message = await seedOne(to)
      const lane = inspect.lane('critical')
      await eventually(
        async () => (await lane.getJob(sendJobId(message.id)))?.data.acceptedLockToken !== undefined,
        { what: 'the accepted claim kept in the job', timeoutMs: 20_000 },
      )
      expect(delivered(to)).toHaveLength(1)
      // Past the claim's expiry nothing resends it: the job only tries to record (and the sweeper
      // leaves a row whose job still exists alone).
      await eventually(
        async () => {
          const [state] = await db
            .select({ expired: sql<boolean>`${messageClaims.lockedUntil} < now()` })
            .from(messageClaims)
            .where(eq(messageClaims.messageId, message.id))
          expect(delivered(to)).toHaveLength(1)
          return state?.expired === true
        },
        { what: 'the claim to expire', timeoutMs: 20_000, intervalMs: 100 },
      )
      await db.execute(sql`drop trigger test_refuse_sent on messages`)
      await eventually(async () => (await row(message.id))?.status === 'sent', {
        what: 'the accepted send recorded',
        timeoutMs: 20_000,
      })
      expect(delivered(to)).toHaveLength(1)
      expect(await row(message.id)).toMatchObject({ attempts: 1, lockToken: null })
      const deadLetter = await inspect.queues[DEAD_LETTER_QUEUE].getJob(
        deadLetterJobId(sendJobId(message.id)),
      )
      expect(deadLetter).toBeUndefined()
      expect(await pipeline.registry.metrics()).toMatch(
        /fairlane_send_not_recorded_total\{lane="critical"\} 1\b/,
      )
    } finally {
      await db.execute(sql`drop trigger if exists test_refuse_sent on messages`)
      await db.execute(sql`drop function if exists test_refuse_sent()`)
    }
  })

  it('does not let an unparseable outbox row block the rows behind it', async () => {
    const [bad] = await pipeline.database.db
      .insert(outbox)
      .values({ tenantId, topic: MESSAGE_PUBLISH_TOPIC, payload: { v: 99, nonsense: true } })
      .returning({ id: outbox.id })
    const message = await seedOne('after-bad-row@example.com')
    await eventually(async () => (await row(message.id))?.status === 'sent', {
      what: 'row behind the bad one',
    })
    const [badRow] = await pipeline.database.db
      .select()
      .from(outbox)
      .where(eq(outbox.id, bad?.id ?? -1))
    expect(badRow?.publishedAt).toBeNull()
    expect(badRow?.attempts).toBeGreaterThanOrEqual(1)
  })
})
