import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteDeps } from '../../routes'
import { callRoute, documentedAnswer, routeDeps } from '../../test-support/api-calls'
import { createWebHarness, seedTenant, type WebHarness } from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from '../catalog'
import type {
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookEndpointWithSecretResponse,
  WebhookReplayResponse,
} from './webhook-responses'

/**
 * An endpoint's test event, delivery log and replays through the route table on real PostgreSQL.
 * What the webhook worker writes (attempts, failures) is written here by SQL: this file tests the
 * tenant's side, not delivery.
 */
const env = setupTestEnvironment('web-webhook-deliveries')

let harness: WebHarness
let deps: RouteDeps
let checked: CheckedDocument
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = routeDeps(harness, harness.apiDeps({ webhookAllowPrivate: true }))
  checked = await checkOpenApiDocument(buildOpenApiDocument())
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})
afterAll(async () => {
  await harness?.close()
})

const LOG = { path: '/api/v1/webhooks/{id}/deliveries', method: 'get' }
const REPLAY_ONE = { path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay', method: 'post' }
const REPLAY_MANY = { path: '/api/v1/webhooks/{id}/deliveries/replay', method: 'post' }

async function endpointOf(key: string): Promise<string> {
  const response = await callRoute(deps, 'POST', '/api/v1/webhooks', {
    token: key,
    body: { url: 'http://127.0.0.1:9/hooks', events: ['email.sent'] },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as WebhookEndpointWithSecretResponse).id
}

async function testEvent(endpointId: string, key = acme.apiKey): Promise<WebhookDeliveryResponse> {
  const response = await callRoute(deps, 'POST', `/api/v1/webhooks/${endpointId}/test`, { token: key })
  expect(response.status).toBe(202)
  return documentedAnswer(checked, { path: '/api/v1/webhooks/{id}/test', method: 'post' }, response)
}

/** What the worker writes when every attempt failed: a failed delivery with its attempts. */
async function failed(deliveryId: string, attempts: number): Promise<void> {
  await harness.database.sql`update webhook_deliveries set status = 'failed', attempts = ${attempts},
    failed_at = now(), last_attempt_at = now(), last_status_code = 500, last_error = 'HTTP 500',
    last_response = 'boom', next_attempt_at = now() + interval '1 day' where id = ${deliveryId}`
  for (let n = 0; n < attempts; n++) {
    await harness.database
      .sql`insert into webhook_attempts (tenant_id, delivery_id, duration_ms, status_code, error, response_excerpt)
      select tenant_id, id, ${10 + n}, 500, 'HTTP 500', 'boom' from webhook_deliveries where id = ${deliveryId}`
  }
}

const log = (endpointId: string, query = '', key = acme.apiKey) =>
  callRoute(deps, 'GET', `/api/v1/webhooks/${endpointId}/deliveries${query}`, { token: key })

describe('the test event', () => {
  it('is a pending webhook.test delivery in the log, with its payload, and notifies the relay', async () => {
    const endpointId = await endpointOf(acme.apiKey)
    const heard: string[] = []
    const subscription = await harness.database.sql.listen('fairlane_webhooks', (payload) =>
      heard.push(payload),
    )
    const delivery = await testEvent(endpointId)
    const deadline = Date.now() + 5_000
    while (heard.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20))
    await subscription.unlisten()
    expect(heard.length).toBeGreaterThan(0)
    expect(delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0, endpointId })
    expect(delivery.webhookId).toMatch(/^msg_/)
    const page = await documentedAnswer<{ items: WebhookDeliveryResponse[] }>(
      checked,
      LOG,
      await log(endpointId),
    )
    expect(page.items.map((item) => item.id)).toEqual([delivery.id])
    const detail = await callRoute(deps, 'GET', `/api/v1/webhooks/${endpointId}/deliveries/${delivery.id}`, {
      token: acme.apiKey,
    })
    const read = await documentedAnswer<WebhookDeliveryDetailResponse>(
      checked,
      { path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}', method: 'get' },
      detail,
    )
    expect(read.payload).toMatchObject({ type: 'webhook.test', data: { endpointId } })
    expect(read.attemptLog).toEqual([])
  })

  it('is refused with 409 while the endpoint is disabled', async () => {
    const endpointId = await endpointOf(acme.apiKey)
    await callRoute(deps, 'PATCH', `/api/v1/webhooks/${endpointId}`, {
      token: acme.apiKey,
      body: { enabled: false },
    })
    const response = await callRoute(deps, 'POST', `/api/v1/webhooks/${endpointId}/test`, {
      token: acme.apiKey,
    })
    expect(response.status).toBe(409)
  })
})

describe('the delivery log', () => {
  it('filters by status, pages by cursor, and shows a failed delivery’s attempts', async () => {
    const endpointId = await endpointOf(acme.apiKey)
    const ids: string[] = []
    for (let n = 0; n < 3; n++) ids.push((await testEvent(endpointId)).id)
    await failed(ids[0] ?? '', 2)
    const onlyFailed = await documentedAnswer<{ items: WebhookDeliveryResponse[] }>(
      checked,
      LOG,
      await log(endpointId, '?status=failed'),
    )
    expect(onlyFailed.items).toEqual([
      expect.objectContaining({
        id: ids[0],
        status: 'failed',
        attempts: 2,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
      }),
    ])
    const first = await documentedAnswer<{ items: WebhookDeliveryResponse[]; nextCursor?: string }>(
      checked,
      LOG,
      await log(endpointId, '?limit=2'),
    )
    expect(first.items.map((item) => item.id)).toEqual([ids[2], ids[1]])
    const second = await documentedAnswer<{ items: WebhookDeliveryResponse[]; nextCursor?: string }>(
      checked,
      LOG,
      await log(endpointId, `?limit=2&cursor=${first.nextCursor}`),
    )
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0] })] })
    const detail = await callRoute(deps, 'GET', `/api/v1/webhooks/${endpointId}/deliveries/${ids[0]}`, {
      token: acme.apiKey,
    })
    const read = (await detail.json()) as WebhookDeliveryDetailResponse
    expect(read.attemptLog.map((attempt) => attempt.durationMs)).toEqual([10, 11])
    expect(read.lastResponse).toBe('boom')
  })

  it.each([
    ['?status=lost', 'status'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['?limit=0', 'limit'],
    ['?colour=red', 'colour'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const endpointId = await endpointOf(acme.apiKey)
    const response = await log(endpointId, query)
    expect(response.status).toBe(400)
    const body = await documentedAnswer<{ error: { details: { path: string }[] } }>(checked, LOG, response)
    expect(body.error.details[0]?.path).toBe(field)
  })
})

describe('replay', () => {
  it('makes one failed delivery pending again, due now, with the same webhook-id', async () => {
    const endpointId = await endpointOf(acme.apiKey)
    const delivery = await testEvent(endpointId)
    await failed(delivery.id, 8)
    const path = `/api/v1/webhooks/${endpointId}/deliveries/${delivery.id}/replay`
    const response = await callRoute(deps, 'POST', path, { token: acme.apiKey })
    expect(response.status).toBe(202)
    const replayed = await documentedAnswer<WebhookDeliveryResponse>(checked, REPLAY_ONE, response)
    expect(replayed).toMatchObject({ status: 'pending', attempts: 8, webhookId: delivery.webhookId })
    expect(replayed.failedAt).toBeUndefined()
    expect(Date.parse(replayed.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now() + 1_000)
  })

  it('replays many, listing ids that are not the endpoint’s; another tenant’s delivery is a 404', async () => {
    const endpointId = await endpointOf(acme.apiKey)
    const a = await testEvent(endpointId)
    const b = await testEvent(endpointId)
    await failed(a.id, 8)
    await failed(b.id, 8)
    const globexEndpoint = await endpointOf(globex.apiKey)
    const theirs = await testEvent(globexEndpoint, globex.apiKey)
    const response = await callRoute(deps, 'POST', `/api/v1/webhooks/${endpointId}/deliveries/replay`, {
      token: acme.apiKey,
      body: { ids: [a.id, b.id, theirs.id] },
    })
    expect(response.status).toBe(202)
    const outcome = await documentedAnswer<WebhookReplayResponse>(checked, REPLAY_MANY, response)
    expect(outcome.items.map((item) => item.id).sort()).toEqual([a.id, b.id].sort())
    expect(outcome.notFound).toEqual([theirs.id])
    for (const [endpoint, key] of [
      [endpointId, acme.apiKey],
      [globexEndpoint, acme.apiKey],
    ] as const) {
      const path = `/api/v1/webhooks/${endpoint}/deliveries/${theirs.id}`
      expect((await callRoute(deps, 'POST', `${path}/replay`, { token: key })).status).toBe(404)
      expect((await callRoute(deps, 'GET', path, { token: key })).status).toBe(404)
    }
    const [row] = await harness.database.sql`select status from webhook_deliveries where id = ${theirs.id}`
    expect(row?.status).toBe('pending')
    const bad = await callRoute(deps, 'POST', `/api/v1/webhooks/${endpointId}/deliveries/replay`, {
      token: acme.apiKey,
      body: { ids: ['nope'] },
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { details: [{ path: 'ids[0]' }] } })
  })
})
