import { randomUUID } from 'node:crypto'
import {
  createDatabase,
  type DatabaseHandle,
  memberships,
  messages,
  outbox,
  tenants,
  users,
  webhookEndpoints,
} from '@fairlane/db'
import { setupTestEnvironment } from '@fairlane/testing'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { disableFailingEndpoints } from './endpoint-health-jobs'

const env = setupTestEnvironment('webhook-endpoint-health')
let database: DatabaseHandle
const DAY_MS = 24 * 60 * 60 * 1000

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'test-webhook-health' })
})
afterAll(async () => {
  await database?.close()
})

async function endpoint(tenantId: string, values: Partial<typeof webhookEndpoints.$inferInsert>) {
  const [row] = await database.db
    .insert(webhookEndpoints)
    .values({
      tenantId,
      url: `https://hooks.example.com/${randomUUID()}`,
      events: ['email.sent'],
      secret: 'whsec_x',
      ...values,
    })
    .returning()
  if (!row) throw new Error('no endpoint')
  return row
}

describe('the webhook endpoint health job', () => {
  it('disables endpoints failing for 3 days and mails its owners and admins as the platform tenant, once', async () => {
    const { db } = database
    const now = new Date()
    const tenantId = await createTenant(db, 'Failing endpoints')
    const userId = randomUUID()
    await db.insert(users).values({ id: userId, name: 'Owner', email: `owner-${userId}@example.com` })
    await db.insert(memberships).values({ tenantId, userId, role: 'owner' })
    const adminId = randomUUID()
    const memberId = randomUUID()
    await db.insert(users).values([
      { id: adminId, name: 'Admin', email: `admin-${adminId}@example.com` },
      { id: memberId, name: 'Member', email: `member-${memberId}@example.com` },
    ])
    await db.insert(memberships).values([
      { tenantId, userId: adminId, role: 'admin' },
      { tenantId, userId: memberId, role: 'member' },
    ])
    const dead = await endpoint(tenantId, { failingSince: new Date(now.getTime() - 4 * DAY_MS) })
    const recent = await endpoint(tenantId, { failingSince: new Date(now.getTime() - 2 * DAY_MS) })
    const healthy = await endpoint(tenantId, { lastSuccessAt: now })
    const deps = { db, appUrl: 'https://app.fairlane.test', clock: { now: () => now }, logger: testLogger() }

    expect(await disableFailingEndpoints(deps)).toEqual({ disabled: 1 })
    const rows = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.tenantId, tenantId))
    const byId = new Map(rows.map((row) => [row.id, row]))
    expect(byId.get(dead.id)).toMatchObject({ enabled: false, disabledReason: 'failing' })
    expect(byId.get(dead.id)?.disabledAt).toBeInstanceOf(Date)
    expect(byId.get(recent.id)).toMatchObject({ enabled: true, disabledReason: null })
    expect(byId.get(healthy.id)).toMatchObject({ enabled: true })

    // Account mail: nothing of the tenant's own, one message per owner or admin from the platform tenant.
    expect(await db.select().from(messages).where(eq(messages.tenantId, tenantId))).toEqual([])
    const [platform] = await db.select().from(tenants).where(eq(tenants.isPlatform, true))
    if (!platform) throw new Error('no platform tenant')
    const notices = await db.select().from(messages).where(eq(messages.tenantId, platform.id))
    expect(notices.map((notice) => notice.toAddress).sort()).toEqual(
      [`admin-${adminId}@example.com`, `owner-${userId}@example.com`].sort(),
    )
    for (const notice of notices) {
      expect(notice).toMatchObject({
        lane: 'default',
        status: 'queued',
        subject: 'Your webhook endpoint was disabled',
        fromAddress: null,
      })
      expect(notice.text).toContain(dead.url)
    }
    const published = await db.select().from(outbox).where(eq(outbox.tenantId, platform.id))
    expect(published.map((row) => row.payload)).toEqual(
      expect.arrayContaining(
        notices.map((notice) => ({
          v: 1,
          messageId: notice.id,
          tenantId: platform.id,
          lane: 'default',
          generation: 0,
        })),
      ),
    )

    // A second run finds nothing more to disable and sends nothing.
    expect(await disableFailingEndpoints(deps)).toEqual({ disabled: 0 })
    expect(await db.select().from(messages).where(eq(messages.tenantId, platform.id))).toHaveLength(2)
  })
})
