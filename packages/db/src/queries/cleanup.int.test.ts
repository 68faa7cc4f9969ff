import { setupTestEnvironment } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { adminAuditLog, messageAttachments, messageContents, messages, outbox } from '../schema'
import {
  clearMessageBodies,
  deleteAuditEntriesBefore,
  deletePublishedOutbox,
  releaseExpiredIdempotencyKeys,
} from './cleanup'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-cleanup')
let database: DatabaseHandle

const DAY_MS = 24 * 60 * 60 * 1000
const now = Date.now()
const daysAgo = (days: number) => new Date(now - days * DAY_MS)

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2 })
})
afterAll(async () => {
  await database?.close()
})

async function drain(step: () => Promise<number>): Promise<{ total: number; statements: number }> {
  let total = 0
  let statements = 0
  for (;;) {
    const changed = await step()
    statements += 1
    total += changed
    if (changed === 0) return { total, statements }
  }
}

describe('deletePublishedOutbox', () => {
  it('deletes only published rows older than the cutoff, in batches', async () => {
    const { db } = database
    const row = (label: string, createdAt: Date, publishedAt: Date | null) => ({
      topic: 'test.cleanup',
      payload: { label },
      createdAt,
      publishedAt,
    })
    await db
      .insert(outbox)
      .values([
        ...Array.from({ length: 5 }, (_, i) => row(`old-published-${i}`, daysAgo(10), daysAgo(9))),
        row('old-unpublished', daysAgo(30), null),
        row('recent-published', daysAgo(6), daysAgo(6)),
        row('published-just-inside', daysAgo(8), daysAgo(6.9)),
        row('fresh-unpublished', daysAgo(0), null),
      ])
    const result = await drain(() => deletePublishedOutbox(db, { before: daysAgo(7), limit: 2 }))
    expect(result).toEqual({ total: 5, statements: 4 })
    const left = await db
      .select({ label: sql<string>`${outbox.payload}->>'label'` })
      .from(outbox)
      .where(sql`${outbox.topic} = 'test.cleanup'`)
    expect(left.map((r) => r.label).sort()).toEqual([
      'fresh-unpublished',
      'old-unpublished',
      'published-just-inside',
      'recent-published',
    ])
  })
})

describe('releaseExpiredIdempotencyKeys', () => {
  it('clears keys past the window, keeps the messages, and lets the key be used again', async () => {
    const { db } = database
    const tenant = await createTenant(db, { name: 'Keys' })
    const base = {
      tenantId: tenant.id,
      lane: 'default' as const,
      status: 'sent' as const,
      toAddress: 'a@example.com',
    }
    await db.insert(messages).values([
      { ...base, idempotencyKey: 'expired', createdAt: daysAgo(2) },
      { ...base, idempotencyKey: 'live', createdAt: daysAgo(0.5) },
      { ...base, idempotencyKey: null, createdAt: daysAgo(3) },
    ])
    const result = await drain(() => releaseExpiredIdempotencyKeys(db, { before: daysAgo(1), limit: 5_000 }))
    expect(result.total).toBe(1)
    const rows = await db
      .select({ key: messages.idempotencyKey })
      .from(messages)
      .where(sql`${messages.tenantId} = ${tenant.id}`)
    expect(rows).toHaveLength(3)
    expect(rows.map((r) => r.key).sort()).toEqual(['live', null, null])
    // The unique (tenant_id, idempotency_key) constraint no longer blocks the expired key.
    await db.insert(messages).values({ ...base, idempotencyKey: 'expired' })
    await expect(db.insert(messages).values({ ...base, idempotencyKey: 'live' })).rejects.toThrow()
  })
})

describe('deleteAuditEntriesBefore', () => {
  it('deletes entries older than the retention only', async () => {
    const { db } = database
    const entry = (targetId: string, createdAt: Date) => ({
      actor: 'admin-token',
      action: 'dlq.replay',
      targetType: 'message',
      targetId,
      createdAt,
    })
    await db.insert(adminAuditLog).values([entry('old', daysAgo(400)), entry('kept', daysAgo(300))])
    const result = await drain(() => deleteAuditEntriesBefore(db, { before: daysAgo(365), limit: 5_000 }))
    expect(result.total).toBe(1)
    const left = await db.select({ targetId: adminAuditLog.targetId }).from(adminAuditLog)
    expect(left.map((r) => r.targetId)).toEqual(['kept'])
  })
})

describe('clearMessageBodies', () => {
  it('also deletes the submitted MIME and the attachments of the messages it clears, and only theirs', async () => {
    const { db } = database
    const tenant = await createTenant(db, { name: 'Bodies' })
    const base = {
      tenantId: tenant.id,
      lane: 'default' as const,
      status: 'sent' as const,
      toAddress: 'a@example.com',
    }
    const [old, fresh, waiting] = await db
      .insert(messages)
      .values([
        { ...base, text: 'old', createdAt: daysAgo(40) },
        { ...base, text: 'fresh', createdAt: daysAgo(1) },
        { ...base, status: 'queued', text: 'waiting', createdAt: daysAgo(40) },
      ])
      .returning({ id: messages.id })
    if (!old || !fresh || !waiting) throw new Error('messages not inserted')
    for (const message of [old, fresh, waiting]) {
      await db
        .insert(messageContents)
        .values({ messageId: message.id, tenantId: tenant.id, raw: Buffer.from('Subject: x\r\n\r\nbody') })
      await db.insert(messageAttachments).values({
        messageId: message.id,
        position: 0,
        tenantId: tenant.id,
        filename: 'a.pdf',
        contentType: 'application/pdf',
        sizeBytes: 3,
        content: Buffer.from('pdf'),
      })
    }
    const result = await drain(() =>
      clearMessageBodies(db, { before: daysAgo(30), limit: 10, lanes: ['default'], now: new Date() }),
    )
    expect(result.total).toBe(1)
    const contents = await db
      .select({ id: messageContents.messageId })
      .from(messageContents)
      .where(eq(messageContents.tenantId, tenant.id))
    const attachments = await db
      .select({ id: messageAttachments.messageId })
      .from(messageAttachments)
      .where(eq(messageAttachments.tenantId, tenant.id))
    expect(contents.map((row) => row.id).sort()).toEqual([fresh.id, waiting.id].sort())
    expect(attachments.map((row) => row.id).sort()).toEqual([fresh.id, waiting.id].sort())
    const [cleared] = await db
      .select({ text: messages.text, removed: messages.bodyRemovedAt })
      .from(messages)
      .where(eq(messages.id, old.id))
    expect(cleared?.text).toBeNull()
    expect(cleared?.removed).not.toBeNull()
  })
})
