import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { getWebhookDelivery } from './get-webhook-delivery'
import { listWebhookDeliveries } from './list-webhook-deliveries'
import { memoryWebhooks } from './memory-webhooks'
import { replayWebhookDeliveries } from './replay-webhook-deliveries'
import { sendTestEvent } from './send-test-event'

const T0 = new Date('2026-12-04T17:00:00.000Z')
const TENANT = 'tenant-a'

async function world() {
  let now = T0
  const memory = memoryWebhooks(() => now)
  const deps = {
    endpoints: memory.endpointStore,
    deliveries: memory.deliveryStore,
    clock: { now: () => now },
  }
  const endpoint = await memory.endpointStore.insertEndpoint({
    tenantId: TENANT,
    url: 'https://hooks.example.com/in',
    description: null,
    events: ['email.sent'],
    secret: 'whsec_x',
    maxEndpoints: 20,
  })
  if (!endpoint) throw new Error('no endpoint')
  const query = { tenantId: TENANT, endpointId: endpoint.id }
  return { memory, deps, query, tick: () => (now = new Date(now.getTime() + 1000)) }
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`)
  return error
}

describe('sendTestEvent', () => {
  it('inserts a pending webhook.test delivery with the endpoint in its payload and wakes the relay', async () => {
    const w = await world()
    const delivery = await sendTestEvent(w.query, w.deps)
    expect(delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0 })
    expect(delivery.webhookId).toMatch(/^msg_/)
    const stored = w.memory.state.deliveries.get(delivery.id)
    expect(stored?.payload).toEqual({
      type: 'webhook.test',
      createdAt: T0.toISOString(),
      data: { endpointId: w.query.endpointId },
    })
    expect(w.memory.state.notifications).toBe(1)
  })

  it('is refused while the endpoint is disabled, and for another tenant’s endpoint', async () => {
    const w = await world()
    const row = w.memory.state.endpoints.get(w.query.endpointId)
    if (row) row.enabled = false
    expect((await refusal(sendTestEvent(w.query, w.deps))).code).toBe('conflict')
    expect((await refusal(sendTestEvent({ ...w.query, tenantId: 'tenant-b' }, w.deps))).code).toBe(
      'not_found',
    )
    expect(w.memory.state.deliveries.size).toBe(0)
  })
})

describe('replayWebhookDeliveries', () => {
  it('makes failed and delivered ones pending and due now with the same webhook-id and attempts', async () => {
    const w = await world()
    const first = await sendTestEvent(w.query, w.deps)
    const second = await sendTestEvent(w.query, w.deps)
    Object.assign(w.memory.state.deliveries.get(first.id) ?? {}, {
      status: 'failed',
      attempts: 8,
      failedAt: T0,
    })
    Object.assign(w.memory.state.deliveries.get(second.id) ?? {}, { status: 'delivered', attempts: 1 })
    w.tick()
    const outcome = await replayWebhookDeliveries({ ...w.query, deliveryIds: [first.id, second.id] }, w.deps)
    expect(outcome.notFound).toEqual([])
    const byId = new Map(outcome.replayed.map((delivery) => [delivery.id, delivery]))
    expect(byId.get(first.id)).toMatchObject({
      status: 'pending',
      attempts: 8,
      failedAt: null,
      webhookId: first.webhookId,
    })
    expect(byId.get(second.id)).toMatchObject({ status: 'pending', attempts: 1, webhookId: second.webhookId })
    expect(byId.get(first.id)?.nextAttemptAt).toEqual(new Date(T0.getTime() + 1000))
    expect(w.memory.state.notifications).toBe(3)
  })

  it('answers 404 for one id not of this endpoint, and lists such ids among several', async () => {
    const w = await world()
    const mine = await sendTestEvent(w.query, w.deps)
    const other = await w.memory.endpointStore.insertEndpoint({
      tenantId: TENANT,
      url: 'https://hooks.example.com/other',
      description: null,
      events: ['email.sent'],
      secret: 'whsec_y',
      maxEndpoints: 20,
    })
    if (!other) throw new Error('no endpoint')
    const theirs = await sendTestEvent({ tenantId: TENANT, endpointId: other.id }, w.deps)
    const lone = await refusal(replayWebhookDeliveries({ ...w.query, deliveryIds: [theirs.id] }, w.deps))
    expect(lone.code).toBe('not_found')
    const outcome = await replayWebhookDeliveries({ ...w.query, deliveryIds: [mine.id, theirs.id] }, w.deps)
    expect(outcome.replayed.map((delivery) => delivery.id)).toEqual([mine.id])
    expect(outcome.notFound).toEqual([theirs.id])
    const stranger = await refusal(
      replayWebhookDeliveries({ ...w.query, tenantId: 'tenant-b', deliveryIds: [mine.id] }, w.deps),
    )
    expect(stranger.code).toBe('not_found')
  })
})

describe('listWebhookDeliveries', () => {
  it('pages newest first by cursor and filters by status', async () => {
    const w = await world()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await sendTestEvent(w.query, w.deps)).id)
      w.tick()
    }
    Object.assign(w.memory.state.deliveries.get(ids[1] ?? '') ?? {}, { status: 'failed' })
    const first = await listWebhookDeliveries({ ...w.query, query: { limit: '2' } }, w.deps)
    expect(first.items.map((item) => item.id)).toEqual([ids[4], ids[3]])
    expect(first.nextCursor).toBeDefined()
    const second = await listWebhookDeliveries(
      { ...w.query, query: { limit: '2', cursor: first.nextCursor ?? '' } },
      w.deps,
    )
    expect(second.items.map((item) => item.id)).toEqual([ids[2], ids[1]])
    const third = await listWebhookDeliveries(
      { ...w.query, query: { limit: '2', cursor: second.nextCursor ?? '' } },
      w.deps,
    )
    expect(third).toEqual({ items: [expect.objectContaining({ id: ids[0] })] })
    const failed = await listWebhookDeliveries({ ...w.query, query: { status: 'failed' } }, w.deps)
    expect(failed.items.map((item) => item.id)).toEqual([ids[1]])
  })

  it('names a bad status or cursor, and 404s another tenant’s endpoint', async () => {
    const w = await world()
    const status = await refusal(listWebhookDeliveries({ ...w.query, query: { status: 'lost' } }, w.deps))
    expect(status.details?.[0]).toMatchObject({
      path: 'status',
      message: 'must be one of pending, delivered, failed',
    })
    const cursor = await refusal(listWebhookDeliveries({ ...w.query, query: { cursor: 'bm9wZQ' } }, w.deps))
    expect(cursor.details?.[0]?.path).toBe('cursor')
    const other = await refusal(
      listWebhookDeliveries({ ...w.query, tenantId: 'tenant-b', query: {} }, w.deps),
    )
    expect(other.code).toBe('not_found')
  })
})

describe('getWebhookDelivery', () => {
  it('answers the payload and the attempts, oldest first', async () => {
    const w = await world()
    const delivery = await sendTestEvent(w.query, w.deps)
    const attempt = {
      id: 1,
      attemptedAt: T0,
      durationMs: 12,
      statusCode: 500,
      error: 'HTTP 500',
      responseExcerpt: 'oops',
    }
    w.memory.state.attempts.set(delivery.id, [attempt])
    const detail = await getWebhookDelivery({ ...w.query, deliveryId: delivery.id }, w.deps)
    expect(detail.attemptLog).toEqual([attempt])
    expect(detail.payload).toMatchObject({ type: 'webhook.test' })
    const missing = await refusal(getWebhookDelivery({ ...w.query, deliveryId: 'nope' }, w.deps))
    expect(missing.code).toBe('not_found')
  })
})
