import {
  expireMessages,
  type MessageRetentionStore,
  type RetentionBatch,
  ROLLUP_CURSOR_NAME,
  rollUpDays,
} from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle, type Executor } from '../client'
import { createMessageRetentionStore } from './message-retention'
import { createRollupStore, writeJobCursor } from './rollup'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-message-retention')
let database: DatabaseHandle

const DAY_MS = 24 * 60 * 60 * 1000
const now = new Date()
const clock = { now: () => now }
const BATCH = 1_000
/** Old finished mail, created 91 to 100 days ago: past a 90-day retention. */
const OLD = 2_500
const RECENT = 500

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3 })
})
afterAll(async () => {
  await database?.close()
})

const count = async (db: Executor, query: ReturnType<typeof sql>) => {
  const [row] = await db.execute<{ n: number }>(query)
  return row?.n ?? -1
}

const rollupTotals = (db: Executor) =>
  db.execute<{ tenant_id: string; day: string; sent: number; failed: number }>(sql`
    select tenant_id, day::text, sent, failed from tenant_daily_stats order by tenant_id, day`)

it('deletes finished messages past the retention with what hangs off them, in bounded batches, keeping the rollup, recent mail and mail in flight', async () => {
  const { db } = database
  const tenant = await createTenant(db, { name: 'Retention' })
  const other = await createTenant(db, { name: 'Other' })
  const at = (days: string) => sql`now() - (${days})::interval`

  // Old sent mail of two tenants, spread over days 91–100 back, each with its queued and sent events.
  await db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, subject, created_at, queued_at, sent_at, updated_at)
    select case when i % 5 = 0 then ${other.id}::uuid else ${tenant.id}::uuid end, 'bulk', 'sent',
      'reader' || i || '@example.test', 'old',
      now() - interval '91 days' - (i % 9) * interval '1 day' - interval '1 hour',
      now() - interval '91 days' - (i % 9) * interval '1 day' - interval '1 hour',
      now() - interval '91 days' - (i % 9) * interval '1 day',
      now() - interval '91 days' - (i % 9) * interval '1 day'
    from generate_series(1, ${OLD}) i`)
  await db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, subject, created_at, queued_at, sent_at, updated_at)
    select ${tenant.id}::uuid, 'default', 'sent', 'recent' || i || '@example.test', 'recent',
      ${at('10 days')}, ${at('10 days')}, ${at('10 days')}, ${at('10 days')}
    from generate_series(1, ${RECENT}) i`)
  await db.execute(sql`
    insert into message_events (tenant_id, message_id, type, at)
    select m.tenant_id, m.id, t.type, m.sent_at from messages m cross join (values ('queued'), ('sent')) t(type)`)
  // Clicks on some old mail, a webhook endpoint (made after the events, so the trigger wrote no
  // deliveries) with delivered deliveries of old and recent mail.
  await db.execute(sql`
    with link as (
      insert into tracked_links (tenant_id, url) values (${tenant.id}, 'https://example.test/a') returning id
    )
    insert into link_clicks (tenant_id, link_id, message_id, clicks)
    select ${tenant.id}::uuid, link.id, m.id, 1 from messages m, link
    where m.tenant_id = ${tenant.id} and m.subject in ('old', 'recent') and m.to_address like '%1@%'`)
  const [endpoint] = await db.execute<{ id: string }>(sql`
    insert into webhook_endpoints (tenant_id, url, events, secret)
    values (${tenant.id}, 'https://hooks.example.test/', array['email.sent'], 'whsec_x') returning id`)
  await db.execute(sql`
    insert into webhook_deliveries (tenant_id, endpoint_id, event_type, payload, message_id, status, created_at)
    select m.tenant_id, ${endpoint?.id}::uuid, 'email.sent', '{}'::jsonb, m.id, 'delivered', m.sent_at
    from messages m where m.tenant_id = ${tenant.id}`)

  // Old mail still in flight, never deleted however old: open statuses, …
  await db.execute(sql`
    with open as (
      insert into messages (tenant_id, lane, status, to_address, subject, created_at)
      select ${tenant.id}::uuid, 'bulk', case when s.status = 'sending' then 'queued' else s.status end,
        s.status || '.open@example.test', 'open', ${at('200 days')}
      from generate_series(1, 20) i cross join (values ('pending'), ('queued'), ('sending'), ('held')) s(status)
      returning id, to_address
    )
    -- A message an attempt holds: queued, with its claim.
    insert into message_claims (message_id, lock_token, locked_until, attempts)
    select id, gen_random_uuid(), now(), 1 from open where to_address = 'sending.open@example.test'`)
  // … an unpublished outbox row, a pending webhook delivery, an outcome today (not in the rollup yet).
  const [kept] = await db.execute<{ outbox: string; webhook: string; today: string }>(sql`
    with outboxed as (
      insert into messages (tenant_id, lane, status, to_address, subject, created_at, updated_at)
      values (${tenant.id}, 'default', 'cancelled', 'kept@example.test', 'kept', ${at('120 days')}, ${at('120 days')})
      returning id
    ), webhooked as (
      insert into messages (tenant_id, lane, status, to_address, subject, created_at, sent_at, updated_at)
      values (${tenant.id}, 'default', 'sent', 'kept@example.test', 'kept', ${at('120 days')}, ${at('120 days')}, ${at('120 days')})
      returning id
    ), today as (
      insert into messages (tenant_id, lane, status, to_address, subject, created_at, failed_at, updated_at)
      values (${tenant.id}, 'default', 'failed', 'kept@example.test', 'kept', ${at('120 days')}, now(), now())
      returning id
    )
    select (select id from outboxed) as outbox, (select id from webhooked) as webhook, (select id from today) as today`)
  if (!kept) throw new Error('no kept rows')
  await db.execute(sql`
    insert into outbox (tenant_id, topic, payload)
    values (${tenant.id}, 'message.publish',
      jsonb_build_object('v', 1, 'messageId', ${kept.outbox}::text, 'tenantId', ${tenant.id}::text, 'lane', 'default', 'generation', 0))`)
  await db.execute(sql`
    insert into webhook_deliveries (tenant_id, endpoint_id, event_type, payload, message_id, status)
    values (${tenant.id}, ${endpoint?.id}, 'email.sent', '{}'::jsonb, ${kept.webhook}, 'pending')`)
  // A suppression names an old message: it outlives it.
  await db.execute(sql`
    insert into suppressions (tenant_id, email, reason, message_id)
    select tenant_id, lower(to_address), 'hard-bounce', id from messages
    where subject = 'old' and tenant_id = ${tenant.id} limit 1`)

  // The daily rollup has counted every ended day, from 101 days back to yesterday.
  await writeJobCursor(db, ROLLUP_CURSOR_NAME, new Date(now.getTime() - 102 * DAY_MS))
  await rollUpDays({ store: createRollupStore(db), timeZone: 'UTC', clock })
  const rollupBefore = await rollupTotals(db)
  expect(rollupBefore.reduce((sum, row) => sum + row.sent, 0)).toBe(OLD + RECENT)

  const counts = async () => ({
    old: await count(db, sql`select count(*)::int as n from messages where subject = 'old'`),
    recent: await count(db, sql`select count(*)::int as n from messages where subject = 'recent'`),
    open: await count(db, sql`select count(*)::int as n from messages where subject = 'open'`),
    kept: await count(db, sql`select count(*)::int as n from messages where subject = 'kept'`),
    events: await count(db, sql`select count(*)::int as n from message_events`),
    clicks: await count(db, sql`select count(*)::int as n from link_clicks`),
    deliveries: await count(db, sql`select count(*)::int as n from webhook_deliveries`),
    suppressions: await count(db, sql`select count(*)::int as n from suppressions`),
  })
  const before = await counts()
  const oldClicks = await count(
    db,
    sql`select count(*)::int as n from link_clicks l join messages m on m.id = l.message_id where m.subject = 'old'`,
  )
  const oldDeliveries = await count(
    db,
    sql`select count(*)::int as n from webhook_deliveries w join messages m on m.id = w.message_id where m.subject = 'old'`,
  )
  expect(oldClicks).toBeGreaterThan(0)

  // Every batch is one statement over at most BATCH messages. One old message is locked by another
  // transaction (an inbound bounce, say) for the whole run: skipped, not waited for.
  const batches: { scanned: number; deleted: number; ms: number }[] = []
  const store = createMessageRetentionStore(db)
  const recording: MessageRetentionStore = {
    readRollupCursor: store.readRollupCursor,
    deleteBatch: async (batch: RetentionBatch) => {
      const started = performance.now()
      const result = await store.deleteBatch(batch)
      batches.push({ scanned: result.scanned, deleted: result.deleted, ms: performance.now() - started })
      return result
    },
  }
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`
      select id from messages where subject = 'old' and tenant_id = ${other.id}
      order by created_at limit 1 for update`)
    return expireMessages({ store: recording, clock, retentionDays: 90, timeZone: 'UTC', batchSize: BATCH })
  })

  // 2,500 old + 3 kept finished messages, one of them locked: 2,502 scanned in 1,000, 1,000, 502.
  expect(batches.map((batch) => batch.scanned)).toEqual([1_000, 1_000, 502])
  expect(result).toEqual({ deleted: OLD - 1, batches: 3 })
  const after = await counts()
  expect(after).toEqual({
    old: 1,
    recent: RECENT,
    open: 80,
    kept: 3,
    // The locked message's two events stay.
    events: before.events - 2 * (OLD - 1),
    clicks: before.clicks - oldClicks,
    deliveries: before.deliveries - oldDeliveries,
    suppressions: before.suppressions,
  })
  expect(await rollupTotals(db)).toEqual(rollupBefore)

  // The next night takes the message that was locked; the walk itself is idempotent.
  const second = await expireMessages({
    store: createMessageRetentionStore(db),
    clock,
    retentionDays: 90,
    timeZone: 'UTC',
    batchSize: BATCH,
  })
  expect(second).toEqual({ deleted: 1, batches: 1 })
  expect((await counts()).old).toBe(0)
})

it('uses the retention index and the rollup its day index, never a scan of the table, and keeps messages before the rollup ran', async () => {
  const { db } = database
  await db.execute(sql`delete from job_cursors where name = ${ROLLUP_CURSOR_NAME}`)
  const nothing = await expireMessages({
    store: createMessageRetentionStore(db),
    clock,
    retentionDays: 1,
    timeZone: 'UTC',
    batchSize: BATCH,
  })
  expect(nothing).toEqual({ deleted: 0, batches: 0 })
  expect(await count(db, sql`select count(*)::int as n from messages where subject = 'recent'`)).toBe(RECENT)

  // A realistic table: 20,000 finished messages of this week, 20,000 pending of a campaign.
  const [{ id: tenantId } = { id: '' }] = await db.execute<{ id: string }>(
    sql`select id from tenants limit 1`,
  )
  await db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, created_at, sent_at)
    select ${tenantId}::uuid, 'bulk', case when i % 2 = 0 then 'sent' else 'pending' end, 'r@example.test',
      now() - (i % 7) * interval '1 day', case when i % 2 = 0 then now() - (i % 7) * interval '1 day' end
    from generate_series(1, 40000) i`)
  await db.execute(sql`analyze messages`)
  const plan = await db.execute<{ 'QUERY PLAN': string }>(sql`
    explain select id from messages m
    where m.status in ('sent', 'failed', 'suppressed', 'cancelled', 'bounced', 'complained')
      and m.created_at < now() - interval '90 days'
    order by m.created_at, m.id limit 1000 for update of m skip locked`)
  expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/messages_retention_idx/)

  // The daily rollup reads one day of sent mail by its range, not the week around it.
  const day = await db.execute<{ 'QUERY PLAN': string }>(sql`
    explain select tenant_id from messages
    where status = 'sent' and sent_at >= now() - interval '2 days' and sent_at < now() - interval '1 day'`)
  expect(day.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/messages_sent_at_idx/)
})
