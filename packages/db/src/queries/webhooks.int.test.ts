import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { createTenant } from './tenants'
import {
  findWebhookDelivery,
  insertWebhookDelivery,
  listWebhookAttempts,
  listWebhookDeliveryRows,
  replayWebhookDeliveries,
} from './webhook-delivery-log'
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpointRows,
  updateWebhookEndpoint,
} from './webhook-endpoints'

/** Webhook endpoints and deliveries against real PostgreSQL: tenant scoping, replay, paging, NOTIFY. */
const env = setupTestEnvironment('webhook-queries')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 10, applicationName: 'webhook-queries-test' })
})
afterAll(async () => {
  await database?.close()
})

async function tenantWithEndpoint(name: string) {
  const tenant = await createTenant(database.db, { name })
  const endpoint = await insertWebhookEndpoint(database.db, {
    tenantId: tenant.id,
    url: 'https://hooks.example.com/in',
    description: null,
    events: ['email.sent', 'email.bounced'],
    secret: 'whsec_c2VjcmV0',
    maxEndpoints: 20,
  })
  if (!endpoint) throw new Error('no endpoint')
  return { tenantId: tenant.id, endpointId: endpoint.id }
}

const testPayload = (endpointId: string) => ({
  type: 'webhook.test',
  createdAt: new Date().toISOString(),
  data: { endpointId },
})

describe('another tenant', () => {
  it('can neither read nor change an endpoint or its deliveries', async () => {
    const acme = await tenantWithEndpoint('Acme hooks')
    const globex = await tenantWithEndpoint('Globex hooks')
    const delivery = await insertWebhookDelivery(database.db, {
      ...acme,
      eventType: 'webhook.test',
      payload: testPayload(acme.endpointId),
    })
    if (!delivery) throw new Error('no delivery')
    await database.sql`insert into webhook_attempts (tenant_id, delivery_id, duration_ms, status_code)
      values (${acme.tenantId}, ${delivery.id}, 5, 500)`
    const stranger = { tenantId: globex.tenantId, endpointId: acme.endpointId }

    expect(await findWebhookEndpoint(database.db, stranger)).toBeNull()
    expect(
      (await listWebhookEndpointRows(database.db, { tenantId: globex.tenantId })).map((e) => e.id),
    ).toEqual([globex.endpointId])
    expect(
      await updateWebhookEndpoint(database.db, stranger, () => ({ url: 'https://evil.example/' })),
    ).toBeNull()
    expect(await deleteWebhookEndpoint(database.db, stranger)).toBe(false)
    expect(
      await insertWebhookDelivery(database.db, { ...stranger, eventType: 'webhook.test', payload: {} }),
    ).toBeNull()
    expect(await findWebhookDelivery(database.db, { ...stranger, deliveryId: delivery.id })).toBeNull()
    expect(await listWebhookDeliveryRows(database.db, { ...stranger, limit: 10 })).toEqual([])
    expect(
      await listWebhookAttempts(database.db, { tenantId: globex.tenantId, deliveryId: delivery.id }),
    ).toEqual([])
    // Globex's own endpoint with Acme's delivery id: still nothing.
    expect(await replayWebhookDeliveries(database.db, { ...globex, deliveryIds: [delivery.id] })).toEqual([])
    expect(await replayWebhookDeliveries(database.db, { ...stranger, deliveryIds: [delivery.id] })).toEqual(
      [],
    )

    const [endpoint] = await database.sql`select url from webhook_endpoints where id = ${acme.endpointId}`
    expect(endpoint?.url).toBe('https://hooks.example.com/in')
    expect(
      await listWebhookAttempts(database.db, { tenantId: acme.tenantId, deliveryId: delivery.id }),
    ).toHaveLength(1)
  })
})

describe('the endpoint cap', () => {
  it('lets exactly the cap of concurrent adds in', async () => {
    const tenant = await createTenant(database.db, { name: 'Many hooks' })
    const adds = Array.from({ length: 8 }, () =>
      insertWebhookEndpoint(database.db, {
        tenantId: tenant.id,
        url: 'https://hooks.example.com/in',
        description: null,
        events: ['email.sent'],
        secret: 'whsec_c2VjcmV0',
        maxEndpoints: 5,
      }),
    )
    const outcomes = await Promise.all(adds)
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(5)
    expect(await listWebhookEndpointRows(database.db, { tenantId: tenant.id })).toHaveLength(5)
  })
})

describe('deliveries', () => {
  it('inserts a test delivery with a msg_ webhook id and notifies the relay in its transaction', async () => {
    const acme = await tenantWithEndpoint('Notify')
    const heard: string[] = []
    const subscription = await database.sql.listen('fairlane_webhooks', (payload) => heard.push(payload))
    try {
      const delivery = await insertWebhookDelivery(database.db, {
        ...acme,
        eventType: 'webhook.test',
        payload: testPayload(acme.endpointId),
      })
      expect(delivery).toMatchObject({
        eventType: 'webhook.test',
        status: 'pending',
        attempts: 0,
        endpointId: acme.endpointId,
      })
      expect(delivery?.webhookId).toMatch(/^msg_[0-9a-f]{32}$/)
      const deadline = Date.now() + 5_000
      while (heard.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(heard).toEqual([''])
    } finally {
      await subscription.unlisten()
    }
  })

  it('replays failed ones as pending, due now, same webhook id and attempts', async () => {
    const acme = await tenantWithEndpoint('Replay')
    const delivery = await insertWebhookDelivery(database.db, {
      ...acme,
      eventType: 'webhook.test',
      payload: testPayload(acme.endpointId),
    })
    if (!delivery) throw new Error('no delivery')
    await database.sql`update webhook_deliveries set status = 'failed', attempts = 8, failed_at = now(),
      next_attempt_at = now() + interval '1 day' where id = ${delivery.id}`
    const [replayed] = await replayWebhookDeliveries(database.db, { ...acme, deliveryIds: [delivery.id] })
    expect(replayed).toMatchObject({
      status: 'pending',
      attempts: 8,
      failedAt: null,
      webhookId: delivery.webhookId,
    })
    expect(replayed?.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000)
  })

  it('pages newest first with the last id as the place, and filters by status', async () => {
    const acme = await tenantWithEndpoint('Paging')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const delivery = await insertWebhookDelivery(database.db, {
        ...acme,
        eventType: 'webhook.test',
        payload: testPayload(acme.endpointId),
      })
      ids.push(delivery?.id ?? '')
    }
    // Two rows in the same microsecond must not be skipped or repeated across pages.
    await database.sql`update webhook_deliveries set created_at = '2026-12-04T17:00:00Z' where id = any(${ids})`
    const seen: string[] = []
    let after: string | undefined
    for (let page = 0; page < 5 && seen.length < 5; page++) {
      const rows = await listWebhookDeliveryRows(database.db, {
        ...acme,
        limit: 2,
        ...(after ? { after } : {}),
      })
      seen.push(...rows.map((row) => row.id))
      after = rows.at(-1)?.id
    }
    expect([...seen].sort()).toEqual([...ids].sort())
    expect(new Set(seen).size).toBe(5)
    await database.sql`update webhook_deliveries set status = 'failed' where id = ${ids[2] ?? ''}`
    const failed = await listWebhookDeliveryRows(database.db, { ...acme, status: 'failed', limit: 10 })
    expect(failed.map((row) => row.id)).toEqual([ids[2]])
  })

  it('go with their endpoint when it is deleted', async () => {
    const acme = await tenantWithEndpoint('Cascade')
    await insertWebhookDelivery(database.db, {
      ...acme,
      eventType: 'webhook.test',
      payload: testPayload(acme.endpointId),
    })
    expect(await deleteWebhookEndpoint(database.db, acme)).toBe(true)
    const [row] =
      await database.sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${acme.endpointId}`
    expect(row?.n).toBe(0)
  })
})
