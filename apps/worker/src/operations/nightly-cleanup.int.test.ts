import { adminAuditLog, createDatabase, type DatabaseHandle, messages, outbox } from '@fairlane/db'
import { addDeferralCounts } from '@fairlane/db/queries/deferral-counts'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { testLogger } from '../test-support/pipeline'
import { createTenant } from '../test-support/seed'
import { runNightlyCleanup } from './nightly-cleanup'

const env = setupTestEnvironment('nightly-cleanup')
let database: DatabaseHandle
const DAY_MS = 24 * 60 * 60 * 1000

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
  await addDeferralCounts(db, [
    { tenantId, lane: 'bulk', minute: ago(40), count: 3 },
    { tenantId, lane: 'bulk', minute: ago(2), count: 4 },
  ])

  const result = await runNightlyCleanup({
    db,
    auditRetentionDays: 30,
    clock: { now: () => now },
    logger: testLogger(),
    batchSize: 2,
  })
  expect(result).toEqual({
    outboxDeleted: 5,
    idempotencyKeysReleased: 1,
    auditEntriesDeleted: 1,
    deferralCountsDeleted: 1,
  })
  const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(outbox)
  expect(left?.n).toBe(2)
  const [messageCount] = await db.select({ n: sql<number>`count(*)::int` }).from(messages)
  expect(messageCount?.n).toBe(2)

  // A second night finds nothing more.
  expect(
    await runNightlyCleanup({ db, auditRetentionDays: 30, clock: { now: () => now }, logger: testLogger() }),
  ).toEqual({
    outboxDeleted: 0,
    idempotencyKeysReleased: 0,
    auditEntriesDeleted: 0,
    deferralCountsDeleted: 0,
  })
})
