import { randomBytes } from 'node:crypto'
import { WEBHOOK_TYPE_OF_MESSAGE_EVENT, type WebhookEventType } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { messages, webhookDeliveries, webhookEndpoints } from '../schema'
import { createTenant } from './tenants'

/** The trigger of migration 0018: one delivery per reported event per subscribed, enabled endpoint. */
const env = setupTestEnvironment('db-webhook-outbox')
let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'db-webhook-outbox-test' })
})
afterAll(async () => {
  await database?.close()
})

async function endpoint(tenantId: string, events: WebhookEventType[], enabled = true) {
  const [row] = await database.db
    .insert(webhookEndpoints)
    .values({
      tenantId,
      url: 'https://hooks.example.com/in',
      events,
      enabled,
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    })
    .returning({ id: webhookEndpoints.id })
  return row?.id as string
}

async function message(tenantId: string) {
  const [row] = await database.db
    .insert(messages)
    .values({
      tenantId,
      lane: 'default',
      status: 'sent',
      toAddress: 'reader@example.com',
      subject: 'Hi',
      text: 'Hi',
    })
    .returning({ id: messages.id })
  return row?.id as string
}

async function event(tenantId: string, messageId: string, type: string, detail: object | null = null) {
  await database.db.execute(sql`
    insert into message_events (tenant_id, message_id, type, detail)
    values (${tenantId}, ${messageId}, ${type}, ${detail ? JSON.stringify(detail) : null}::jsonb)`)
}

const deliveriesOf = (endpointId: string) =>
  database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))

describe('the webhook outbox trigger', () => {
  it.each(Object.entries(WEBHOOK_TYPE_OF_MESSAGE_EVENT))(
    'turns a %s event into %s',
    async (eventType, webhookType) => {
      const tenantId = (await createTenant(database.db, { name: `T ${eventType}` })).id
      const subscribed = await endpoint(tenantId, [webhookType])
      const other = await endpoint(tenantId, webhookType === 'email.sent' ? ['email.failed'] : ['email.sent'])
      const messageId = await message(tenantId)
      await event(tenantId, messageId, eventType, { source: 'test' })
      const [delivery] = await deliveriesOf(subscribed)
      expect(delivery).toMatchObject({ tenantId, eventType: webhookType, status: 'pending', messageId })
      expect(delivery?.payload).toMatchObject({
        type: webhookType,
        data: { messageId, to: 'reader@example.com', campaignId: null },
      })
      expect(delivery?.webhookId).toMatch(/^msg_[0-9a-f]{32}$/)
      expect(await deliveriesOf(other)).toHaveLength(0)
    },
  )

  it('writes a bounce as bounceType, status and diagnostic, with the event time as createdAt', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Bounces' })).id
    const id = await endpoint(tenantId, ['email.bounced'])
    const messageId = await message(tenantId)
    await event(tenantId, messageId, 'bounced', {
      kind: 'hard',
      status: '5.1.1',
      action: 'failed',
      diagnostic: 'no such user',
    })
    const [delivery] = await deliveriesOf(id)
    expect(delivery?.payload).toEqual({
      type: 'email.bounced',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        messageId,
        to: 'reader@example.com',
        campaignId: null,
        bounceType: 'hard',
        status: '5.1.1',
        action: 'failed',
        diagnostic: 'no such user',
      },
    })
    expect(new Date(String(delivery?.payload.createdAt)).getTime()).toBe(delivery?.createdAt.getTime())
  })

  it('writes nothing for internal steps, disabled endpoints or another tenant', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Quiet' })).id
    const otherTenant = (await createTenant(database.db, { name: 'Other' })).id
    const disabled = await endpoint(tenantId, ['email.sent'], false)
    const elsewhere = await endpoint(otherTenant, ['email.sent', 'email.failed'])
    const messageId = await message(tenantId)
    for (const type of ['accepted', 'queued', 'deferred', 'sent']) await event(tenantId, messageId, type)
    expect(await deliveriesOf(disabled)).toHaveLength(0)
    expect(await deliveriesOf(elsewhere)).toHaveLength(0)
  })

  it('writes one delivery per event and endpoint for a statement of many events, and notifies', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Many' })).id
    const first = await endpoint(tenantId, ['email.sent'])
    const second = await endpoint(tenantId, ['email.sent', 'email.bounced'])
    const listener = createDatabase(env.databaseUrl, { max: 1 })
    let notified = 0
    await listener.sql.listen('fairlane_webhooks', () => {
      notified += 1
    })
    try {
      await database.db.execute(sql`
        with m as (
          insert into messages (tenant_id, lane, status, to_address, subject, text)
          select ${tenantId}, 'default', 'sent', 'r' || g || '@example.com', 'Hi', 'Hi' from generate_series(1, 50) g
          returning id, tenant_id)
        insert into message_events (tenant_id, message_id, type) select tenant_id, id, 'sent' from m`)
      expect(await deliveriesOf(first)).toHaveLength(50)
      expect(await deliveriesOf(second)).toHaveLength(50)
      const deadline = Date.now() + 5_000
      while (notified === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(notified).toBeGreaterThan(0)
    } finally {
      await listener.close()
    }
  })
})
