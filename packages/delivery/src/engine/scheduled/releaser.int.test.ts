import { cancelOpenMessage } from '@fairlane/db/queries/scheduled-messages'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * Issue 29, scheduled sends: tenant A schedules 2,000 reminders for one instant; at that instant tenant
 * B's API mail is accepted. The releaser turns A's rows `queued` all at once (it does not pace), and the
 * relay's fair claim and A's lane parking hold A to its plan, so B's message is among the first sent,
 * not behind A's 2,000 (on a first-in-first-out path it would be the 2,001st).
 */
const test = setupTestEnvironment('scheduled-release')
const PLAN = { ratePerSec: 100, burst: 20 }
const FLOOD = 2_000
let sink: MailSink
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    transactionalPlan: PLAN,
    tuning: {
      relay: { pollMs: 200, maxBackoffMs: 500, addTimeoutMs: 2_000 },
      sweeper: { intervalMs: 300, queuedForMs: 1_500 },
      scheduled: { everyMs: 100 },
    },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

/** A's reminders as the API writes a scheduled message: `scheduled`, its send time, no outbox row. */
async function scheduleFlood(tenantId: string, sendAt: Date): Promise<void> {
  await pipeline.database.db.execute(sql`
    insert into messages (tenant_id, lane, status, template, to_address, subject, html, text, send_at, source)
    select ${tenantId}, 'default', 'scheduled', null, 'a' || n || '@reminders.test', 'Reminder ' || n,
      null, 'See you tomorrow', ${sendAt.toISOString()}::timestamptz, 'api'
    from generate_series(1, ${FLOOD}) as n`)
}

async function statusCounts(tenantId: string): Promise<Record<string, number>> {
  const rows = await pipeline.database.db.execute<{ status: string; count: number }>(sql`
    select status, count(*)::int as count from messages where tenant_id = ${tenantId} group by status`)
  return Object.fromEntries(rows.map((row) => [row.status, row.count]))
}

it("sends B's mail among the first when A's 2,000 scheduled reminders come due at the same instant", async () => {
  const db = pipeline.database.db
  const a = await createTenant(db, 'Reminders')
  const b = await createTenant(db, 'Bystander')
  const sendAt = new Date(Date.now() + 2_000)
  await scheduleFlood(a, sendAt)

  // Nothing leaves before its time.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, sendAt.getTime() - Date.now() - 700)))
  expect(await statusCounts(a)).toEqual({ scheduled: FLOOD })
  expect(sink.store.list().filter((mail) => mail.to.endsWith('@reminders.test'))).toEqual([])

  // The instant A's reminders are released, B's API mail is accepted.
  await eventually(async () => ((await statusCounts(a)).scheduled ?? 0) < FLOOD, {
    what: "A's reminders released",
    timeoutMs: 10_000,
    intervalMs: 10,
  })
  const [bMail] = await seedQueuedMessages(db, { tenantId: b, lane: 'default', to: () => 'b@bystander.test' })
  expect(bMail).toBeDefined()
  const bAcceptedAt = Date.now()
  let bReceivedAt = 0
  await eventually(
    () => {
      const [mail] = sink.store.list({ to: 'b@bystander.test' })
      if (mail) bReceivedAt = Date.parse(mail.receivedAt)
      return mail !== undefined
    },
    { what: "B's mail", timeoutMs: 20_000, intervalMs: 10 },
  )
  const aBeforeB = sink.store
    .list()
    .filter(
      (mail) => mail.to.endsWith('@reminders.test') && Date.parse(mail.receivedAt) <= bReceivedAt,
    ).length
  // Every one of A's rows left `scheduled` in the pass that found them due (one releaser pass).
  expect((await statusCounts(a)).scheduled ?? 0).toBe(0)
  // Among the first: A gets its plan's burst and a moment of its rate before B's turn comes, never its 2,000.
  expect(aBeforeB).toBeLessThan(FLOOD / 10)
  expect(bReceivedAt - bAcceptedAt).toBeLessThan(5_000)

  // Released once each: one outbox row per reminder, none twice (the relay and its parking pace them
  // from there; their delivery in full is the relay's tests' business).
  const [outboxRows] = await db.execute<{ rows: number; messages: number }>(sql`
    select count(*)::int as rows, count(distinct payload->>'messageId')::int as messages
    from outbox where tenant_id = ${a}`)
  expect(outboxRows).toEqual({ rows: FLOOD, messages: FLOOD })
}, 60_000)

it('never sends a cancelled message: a scheduled one is not released, a queued one whose job exists is skipped', async () => {
  const db = pipeline.database.db
  const tenantId = await createTenant(db, 'Canceller')
  const sendAt = new Date(Date.now() + 1_000)
  const scheduled = async (to: string) => {
    const [row] = await db.execute<{ id: string }>(sql`
      insert into messages (tenant_id, lane, status, to_address, subject, text, send_at, source)
      values (${tenantId}, 'default', 'scheduled', ${to}, 'Later', 'Later', ${sendAt.toISOString()}::timestamptz, 'api')
      returning id`)
    return row?.id ?? ''
  }
  const kept = await scheduled('kept@cancel.test')
  const dropped = await scheduled('dropped@cancel.test')
  expect(await cancelOpenMessage(db, { tenantId, messageId: dropped })).toEqual({ kind: 'cancelled' })

  // Queued and cancelled before its job ran: the outbox row (the job) still goes out, the claim finds
  // the row cancelled and the send ends without a mail.
  const [queued] = await seedQueuedMessages(db, {
    tenantId,
    lane: 'default',
    to: () => 'queued@cancel.test',
    publish: false,
  })
  const queuedId = queued?.id ?? ''
  expect(await cancelOpenMessage(db, { tenantId, messageId: queuedId })).toEqual({ kind: 'cancelled' })
  await db.execute(sql`
    insert into outbox (tenant_id, topic, payload)
    values (${tenantId}, 'message.publish', ${JSON.stringify({ v: 1, messageId: queuedId, tenantId, lane: 'default', generation: 0 })}::jsonb)`)
  await db.execute(sql`select pg_notify('fairlane_outbox', '')`)

  await eventually(() => sink.store.list({ to: 'kept@cancel.test' }).length === 1, {
    what: 'the kept scheduled message',
    timeoutMs: 15_000,
    intervalMs: 20,
  })
  // The cancelled job has been taken and ended (its `queued` event is the relay's publish).
  await eventually(
    async () => {
      const [row] = await db.execute<{ count: number }>(sql`
        select count(*)::int as count from message_events where message_id = ${queuedId} and type = 'queued'`)
      return row?.count === 1
    },
    { what: "the cancelled message's job", timeoutMs: 10_000, intervalMs: 20 },
  )
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(sink.store.list({ to: 'dropped@cancel.test' })).toEqual([])
  expect(sink.store.list({ to: 'queued@cancel.test' })).toEqual([])
  const statuses = await db.execute<{ id: string; status: string }>(sql`
    select id, status from messages where tenant_id = ${tenantId}`)
  expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual({
    [kept]: 'sent',
    [dropped]: 'cancelled',
    [queuedId]: 'cancelled',
  })
}, 30_000)
