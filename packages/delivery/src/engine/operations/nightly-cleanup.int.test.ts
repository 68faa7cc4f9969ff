import { randomUUID } from 'node:crypto'
import {
  adminAuditLog,
  createDatabase,
  type DatabaseHandle,
  messageEvents,
  messages,
  outbox,
  tenantAuditLog,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from '@fairlane/db'
import { addDeferralCounts } from '@fairlane/db/queries/deferral-counts'
import { recordMessageEvents } from '@fairlane/db/queries/message-events'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { runNightlyCleanup } from './nightly-cleanup'

const env = setupTestEnvironment('nightly-cleanup')
let database: DatabaseHandle
const DAY_MS = 24 * 60 * 60 * 1000
const bodyRetention = { days: 30, criticalDays: 7 }

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 2 })
})
afterAll(async () => {
  await database?.close()
})

it('loops over small batches until everything past retention is gone, and nothing else', async () => {
  const { db } = database
  const now = new Date()
  const ago = (days: number) => new Date(now.getTime() - days * DAY_MS)
  await db.insert(outbox).values([
    ...Array.from({ length: 5 }, () => ({
      topic: 't',
      payload: {},
      createdAt: ago(9),
      publishedAt: ago(8),
    })),
    { topic: 't', payload: {}, createdAt: ago(9), publishedAt: null },
    { topic: 't', payload: {}, createdAt: ago(1), publishedAt: ago(1) },
  ])
  const tenantId = await createTenant(db)
  const base = { tenantId, lane: 'default' as const, status: 'sent' as const, toAddress: 'a@example.com' }
  await db.insert(messages).values([
    { ...base, idempotencyKey: 'k1', createdAt: ago(1.5) },
    { ...base, idempotencyKey: 'k2', createdAt: ago(0.5) },
  ])
  await db.insert(adminAuditLog).values([
    { actor: 'admin-token', action: 'dlq.replay', createdAt: ago(40) },
    { actor: 'admin-token', action: 'dlq.replay', createdAt: ago(10) },
  ])
  // Tenant audit entries: five past AUDIT_RETENTION_DAYS over two tenants (three batches of 2), one not.
  const otherTenantId = await createTenant(db)
  const auditEntry = (tenant: string, days: number) => ({
    tenantId: tenant,
    actor: 'owner@example.test',
    action: 'domain.add',
    targetType: 'domain',
    targetId: `d-${days}`,
    ipAddress: '203.0.113.9',
    createdAt: ago(days),
  })
  await db
    .insert(tenantAuditLog)
    .values([
      ...[31, 35, 400].map((days) => auditEntry(tenantId, days)),
      ...[31, 90].map((days) => auditEntry(otherTenantId, days)),
      auditEntry(tenantId, 29),
    ])
  await addDeferralCounts(db, [
    { tenantId, lane: 'bulk', minute: ago(40), count: 3 },
    { tenantId, lane: 'bulk', minute: ago(2), count: 4 },
  ])

  const result = await runNightlyCleanup({
    db,
    auditRetentionDays: 30,
    bodyRetention,
    eventRetentionDays: 30,
    // Past a 1-day retention, the 1.5-day-old message stays: the rollup has not run, nothing counts its day.
    messageRetention: { days: 1, timeZone: 'UTC' },
    clock: { now: () => now },
    logger: testLogger(),
    batchSize: 2,
  })
  expect(result).toEqual({
    outboxDeleted: 5,
    idempotencyKeysReleased: 1,
    auditEntriesDeleted: 1,
    tenantAuditEntriesDeleted: 5,
    deferralCountsDeleted: 1,
    messageBodiesCleared: 0,
    messageEventsDeleted: 0,
    webhookDeliveriesDeleted: 0,
    messagesDeleted: 0,
  })
  const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(outbox)
  expect(left?.n).toBe(2)
  const [messageCount] = await db.select({ n: sql<number>`count(*)::int` }).from(messages)
  expect(messageCount?.n).toBe(2)
  const keptAudit = await db.select({ targetId: tenantAuditLog.targetId }).from(tenantAuditLog)
  expect(keptAudit).toEqual([{ targetId: 'd-29' }])

  // A second night finds nothing more.
  expect(
    await runNightlyCleanup({
      db,
      auditRetentionDays: 30,
      bodyRetention,
      eventRetentionDays: 30,
      clock: { now: () => now },
      logger: testLogger(),
    }),
  ).toEqual({
    outboxDeleted: 0,
    idempotencyKeysReleased: 0,
    auditEntriesDeleted: 0,
    tenantAuditEntriesDeleted: 0,
    deferralCountsDeleted: 0,
    messageBodiesCleared: 0,
    messageEventsDeleted: 0,
    webhookDeliveriesDeleted: 0,
    messagesDeleted: 0,
  })
})

it('clears bodies, variables and rendered content past their retention, critical mail first; metadata stays', async () => {
  const { db } = database
  const now = new Date()
  const ago = (days: number) => new Date(now.getTime() - days * DAY_MS)
  const tenantId = await createTenant(db, 'Retention')
  const body = {
    tenantId,
    toAddress: 'reader@example.com',
    subject: 'Your sign-in code',
    html: '<p>Your code is <b>482913</b></p>',
    text: 'Your code is 482913',
    variables: { code: '482913', link: 'https://app.example/reset?t=secret' },
  }
  const rows = await db
    .insert(messages)
    .values([
      { ...body, lane: 'critical', status: 'sent', template: 'otp', createdAt: ago(8) },
      { ...body, lane: 'critical', status: 'failed', template: 'password-reset', createdAt: ago(7.5) },
      { ...body, lane: 'critical', status: 'sent', template: 'otp', createdAt: ago(6) },
      // Still to be sent: its body is needed, however old.
      { ...body, lane: 'critical', status: 'queued', template: 'otp', createdAt: ago(8) },
      { ...body, lane: 'default', status: 'sent', createdAt: ago(31) },
      { ...body, lane: 'default', status: 'sent', createdAt: ago(29) },
      { ...body, lane: 'bulk', status: 'failed', createdAt: ago(40) },
    ])
    .returning({ id: messages.id })
  const cleared = new Set([rows[0]?.id, rows[1]?.id, rows[4]?.id, rows[6]?.id])

  const result = await runNightlyCleanup({
    db,
    auditRetentionDays: 30,
    bodyRetention,
    eventRetentionDays: 30,
    clock: { now: () => now },
    logger: testLogger(),
    batchSize: 2,
  })
  expect(result.messageBodiesCleared).toBe(4)
  const after = await db.execute<{
    id: string
    html: string | null
    text: string | null
    variables: unknown
    subject: string | null
    to_address: string
    status: string
    body_removed_at: Date | string | null
  }>(sql`select id, html, text, variables, subject, to_address, status, body_removed_at
    from messages where tenant_id = ${tenantId}`)
  for (const row of after) {
    if (cleared.has(row.id)) {
      expect(row).toMatchObject({ html: null, text: null, variables: null })
      expect(new Date(row.body_removed_at as string).getTime()).toBe(now.getTime())
    } else {
      expect(row).toMatchObject({
        html: body.html,
        text: body.text,
        variables: body.variables,
        body_removed_at: null,
      })
    }
    // What was sent to whom, and how it ended, stays.
    expect(row).toMatchObject({ subject: body.subject, to_address: body.toAddress })
  }
  expect(after.map((row) => row.status).sort()).toEqual(
    ['failed', 'failed', 'queued', 'sent', 'sent', 'sent', 'sent'].sort(),
  )
})

it('deletes events past EVENT_RETENTION_DAYS in batches, every tenant’s, and keeps the newer ones', async () => {
  const { db } = database
  const now = new Date()
  const ago = (days: number) => new Date(now.getTime() - days * DAY_MS)
  const tenants = [await createTenant(db, 'Events A'), await createTenant(db, 'Events B')]
  const old = tenants.flatMap((tenantId) =>
    [45, 31, 30.01].map((days) => ({
      tenantId,
      messageId: randomUUID(),
      type: 'sent' as const,
      at: ago(days),
    })),
  )
  const kept = tenants.map((tenantId) => ({
    tenantId,
    messageId: randomUUID(),
    type: 'accepted' as const,
    at: ago(29.9),
  }))
  expect(await recordMessageEvents(db, [...old, ...kept])).toBe(8)

  const result = await runNightlyCleanup({
    db,
    auditRetentionDays: 30,
    bodyRetention,
    eventRetentionDays: 30,
    clock: { now: () => now },
    logger: testLogger(),
    batchSize: 4,
  })
  expect(result.messageEventsDeleted).toBe(6)
  const left = await db.select({ messageId: messageEvents.messageId }).from(messageEvents)
  expect(left.map((row) => row.messageId).sort()).toEqual(kept.map((event) => event.messageId).sort())
})

it('deletes webhook deliveries past EVENT_RETENTION_DAYS with their attempts, in batches', async () => {
  const { db } = database
  const now = new Date()
  const tenantId = await createTenant(db, 'Webhook retention')
  const [endpoint] = await db
    .insert(webhookEndpoints)
    .values({ tenantId, url: 'https://hooks.example.com/in', events: ['email.sent'], secret: 'whsec_x' })
    .returning({ id: webhookEndpoints.id })
  const delivery = (days: number) => ({
    tenantId,
    endpointId: endpoint?.id ?? '',
    eventType: 'email.sent' as const,
    payload: { type: 'email.sent' },
    status: 'delivered' as const,
    createdAt: new Date(now.getTime() - days * DAY_MS),
  })
  const rows = await db
    .insert(webhookDeliveries)
    .values([delivery(31), delivery(40), delivery(35), delivery(29)])
    .returning({ id: webhookDeliveries.id })
  await db
    .insert(webhookAttempts)
    .values(rows.map((row) => ({ tenantId, deliveryId: row.id, durationMs: 5 })))
  const result = await runNightlyCleanup({
    db,
    auditRetentionDays: 30,
    bodyRetention,
    eventRetentionDays: 30,
    clock: { now: () => now },
    logger: testLogger(),
    batchSize: 2,
  })
  expect(result.webhookDeliveriesDeleted).toBe(3)
  const left = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
  expect(left.map((row) => row.id)).toEqual([rows[3]?.id])
  const attemptsLeft = await db.select({ deliveryId: webhookAttempts.deliveryId }).from(webhookAttempts)
  expect(attemptsLeft.map((row) => row.deliveryId)).toEqual([rows[3]?.id])
})
