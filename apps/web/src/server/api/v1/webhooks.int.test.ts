import { MAX_WEBHOOK_ENDPOINTS_PER_TENANT } from '@fairlane/core'
import { setupTestEnvironment, startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteDeps } from '../../routes'
import { callRoute, documentedAnswer, routeDeps } from '../../test-support/api-calls'
import { createWebHarness, seedTenant, type WebHarness } from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from '../catalog'
import type { WebhookEndpointResponse, WebhookEndpointWithSecretResponse } from './webhook-responses'

/**
 * `/api/v1/webhooks` through the route table on real PostgreSQL, with the URL's host resolved by a
 * real DNS server (the test's, as DNS_SERVERS) that serves public, loopback, private and metadata
 * addresses; every answer checked against the API document.
 */
const env = setupTestEnvironment('web-webhooks')

let harness: WebHarness
let dns: TestDnsServer
let deps: RouteDeps
let allowPrivate: RouteDeps
let checked: CheckedDocument
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>

const ZONE = {
  'hooks.acme.test': ['93.184.215.14'],
  'loopback.acme.test': ['127.0.0.1'],
  'private.acme.test': ['10.20.30.40'],
  'metadata.acme.test': ['169.254.169.254'],
  'mixed.acme.test': ['93.184.215.14', '192.168.1.9'],
}

beforeAll(async () => {
  harness = createWebHarness(env)
  dns = await startTestDnsServer()
  for (const [name, addresses] of Object.entries(ZONE)) {
    for (const value of addresses) dns.publish({ type: 'A', name, value })
  }
  dns.publish({ type: 'AAAA', name: 'v6loop.acme.test', value: '::1' })
  deps = routeDeps(harness, harness.apiDeps({ dnsServers: [dns.address], dnsTimeoutMs: 1_000 }))
  allowPrivate = routeDeps(harness, harness.apiDeps({ dnsServers: [dns.address], webhookAllowPrivate: true }))
  checked = await checkOpenApiDocument(buildOpenApiDocument())
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})
afterAll(async () => {
  await dns?.close()
  await harness?.close()
})

const COLLECTION = { path: '/api/v1/webhooks', method: 'post' }
const ONE = (method: string) => ({ path: '/api/v1/webhooks/{id}', method })
type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } }

async function add(body: unknown, options: { key?: string; using?: RouteDeps } = {}) {
  return callRoute(options.using ?? deps, 'POST', '/api/v1/webhooks', {
    token: options.key ?? acme.apiKey,
    body,
  })
}

async function added(url = 'https://hooks.acme.test/fairlane', key = acme.apiKey) {
  const response = await add({ url, events: ['email.sent', 'email.bounced'] }, { key })
  expect(response.status).toBe(201)
  return documentedAnswer<WebhookEndpointWithSecretResponse>(checked, COLLECTION, response)
}

async function firstIssue(response: Response) {
  expect(response.status).toBe(400)
  const { error } = await documentedAnswer<ErrorBody>(checked, COLLECTION, response)
  return { code: error.code, message: error.message, ...error.details?.[0] }
}

describe('POST /api/v1/webhooks', () => {
  it('answers 201 with the endpoint, enabled, and a whsec_ secret that no other answer carries', async () => {
    const created = await added()
    expect(created).toMatchObject({
      url: 'https://hooks.acme.test/fairlane',
      events: ['email.sent', 'email.bounced'],
      enabled: true,
      disabledReason: null,
    })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const read = await callRoute(deps, 'GET', `/api/v1/webhooks/${created.id}`, { token: acme.apiKey })
    const text = await read.clone().text()
    expect(text).not.toContain(created.secret)
    expect(await documentedAnswer(checked, ONE('get'), read)).toMatchObject({ id: created.id, enabled: true })
    const list = await callRoute(deps, 'GET', '/api/v1/webhooks', { token: acme.apiKey })
    expect(await list.clone().text()).not.toContain(created.secret)
    const { items } = await documentedAnswer<{ items: WebhookEndpointResponse[] }>(
      checked,
      { path: '/api/v1/webhooks', method: 'get' },
      list,
    )
    expect(items.map((item) => item.id)).toContain(created.id)
  })

  it.each([
    ['http://hooks.acme.test/in', 'url must start with https://'],
    ['https://127.0.0.1/in', 'loopback'],
    ['https://2130706433/in', 'loopback'],
    ['https://10.0.0.1/in', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://[::ffff:10.0.0.1]/in', 'private'],
    ['https://localhost/in', 'localhost'],
    ['https://loopback.acme.test/in', 'loopback.acme.test resolves to 127.0.0.1'],
    ['https://private.acme.test/in', 'resolves to 10.20.30.40'],
    ['https://metadata.acme.test/in', 'resolves to 169.254.169.254'],
    ['https://mixed.acme.test/in', 'resolves to 192.168.1.9'],
    ['https://v6loop.acme.test/in', 'resolves to ::1'],
    ['https://nowhere.acme.test/in', 'does not resolve'],
    [`https://hooks.acme.test/${'a'.repeat(2030)}`, 'at most 2048 characters'],
    ['not a url', 'not an absolute URL'],
  ])('refuses %s with a 400 naming url', async (url, why) => {
    const issue = await firstIssue(await add({ url, events: ['email.sent'] }))
    expect(issue).toMatchObject({ code: 'validation_failed', path: 'url' })
    expect(issue.message).toContain(why)
  })

  it('lists the valid event types for an unknown one, and names a missing field', async () => {
    const unknown = await firstIssue(
      await add({ url: 'https://hooks.acme.test/in', events: ['email.exploded'] }),
    )
    expect(unknown.path).toBe('events[0]')
    expect(unknown.message).toContain(
      'email.sent, email.bounced, email.complained, email.failed, email.opened',
    )
    expect(unknown.message).toContain('domain.verified, domain.failed')
    expect((await firstIssue(await add({ url: 'https://hooks.acme.test/in' }))).path).toBe('events')
    expect((await firstIssue(await add({ events: ['email.sent'] }))).path).toBe('url')
    expect(
      (await firstIssue(await add({ url: 'https://hooks.acme.test/', events: ['email.sent'], x: 1 }))).path,
    ).toBe('x')
  })

  it('with WEBHOOK_ALLOW_PRIVATE takes http and loopback URLs', async () => {
    const response = await add(
      { url: 'http://127.0.0.1:9/in', events: ['email.sent'] },
      { using: allowPrivate },
    )
    expect(response.status).toBe(201)
  })

  it('answers 422 past the cap of endpoints per tenant', async () => {
    const crowded = await seedTenant(harness, 'Crowded')
    const body = { url: 'http://127.0.0.1:9/in', events: ['email.sent'] }
    for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS_PER_TENANT; n++) {
      expect((await add(body, { key: crowded.apiKey, using: allowPrivate })).status).toBe(201)
    }
    const refused = await add(body, { key: crowded.apiKey, using: allowPrivate })
    expect(refused.status).toBe(422)
    const { error } = await documentedAnswer<ErrorBody>(checked, COLLECTION, refused)
    expect(error).toMatchObject({ code: 'unprocessable' })
  })

  it('answers 401 without a key', async () => {
    const response = await callRoute(deps, 'POST', '/api/v1/webhooks', {
      body: { url: 'https://x.test', events: [] },
    })
    expect(response.status).toBe(401)
  })
})

describe('PATCH, rotate-secret and DELETE /api/v1/webhooks/:id', () => {
  it('changes events and description, switches off and on, and checks a new URL', async () => {
    const { id } = await added()
    const patch = (body: unknown) =>
      callRoute(deps, 'PATCH', `/api/v1/webhooks/${id}`, { token: acme.apiKey, body })
    const changed = await patch({ events: ['email.failed'], description: 'CRM' })
    expect(changed.status).toBe(200)
    expect(await documentedAnswer(checked, ONE('patch'), changed)).toMatchObject({
      events: ['email.failed'],
      description: 'CRM',
    })
    expect(await (await patch({ enabled: false })).json()).toMatchObject({
      enabled: false,
      disabledReason: 'manual',
    })
    await harness.database.sql`update webhook_endpoints set disabled_reason = 'failing',
      failing_since = now() - interval '4 days', parked_until = now() + interval '1 hour' where id = ${id}`
    expect(await (await patch({ enabled: true })).json()).toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
    })
    const [row] = await harness.database.sql`select parked_until from webhook_endpoints where id = ${id}`
    expect(row?.parked_until).toBeNull()
    const refused = await patch({ url: 'https://metadata.acme.test/' })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: { details: [{ path: 'url' }] } })
    expect((await patch({ enabled: 'yes' })).status).toBe(400)
  })

  it('rotates the secret: a new one answered once, the old one kept for the grace period', async () => {
    const created = await added()
    const response = await callRoute(deps, 'POST', `/api/v1/webhooks/${created.id}/rotate-secret`, {
      token: acme.apiKey,
    })
    expect(response.status).toBe(200)
    const rotated = await documentedAnswer<WebhookEndpointWithSecretResponse>(
      checked,
      { path: '/api/v1/webhooks/{id}/rotate-secret', method: 'post' },
      response,
    )
    expect(rotated.secret).not.toBe(created.secret)
    expect(Date.parse(rotated.previousSecretExpiresAt ?? '') - Date.now()).toBeGreaterThan(23 * 3600_000)
    const [row] = await harness.database
      .sql`select secret, previous_secret from webhook_endpoints where id = ${created.id}`
    expect(row).toEqual({ secret: rotated.secret, previous_secret: created.secret })
  })

  it('deletes the endpoint, then 404s it', async () => {
    const { id } = await added()
    const response = await callRoute(deps, 'DELETE', `/api/v1/webhooks/${id}`, { token: acme.apiKey })
    expect(await documentedAnswer(checked, ONE('delete'), response)).toMatchObject({ id })
    expect((await callRoute(deps, 'GET', `/api/v1/webhooks/${id}`, { token: acme.apiKey })).status).toBe(404)
  })
})

describe('another tenant', () => {
  it('gets 404 for every call on an endpoint it does not own, and changes nothing', async () => {
    const { id } = await added()
    const as = { token: globex.apiKey }
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/webhooks/${id}`],
      ['PATCH', `/api/v1/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${id}`],
      ['POST', `/api/v1/webhooks/${id}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${id}/test`],
      ['GET', `/api/v1/webhooks/${id}/deliveries`],
      ['POST', `/api/v1/webhooks/${id}/deliveries/replay`, { ids: [id] }],
      ['GET', '/api/v1/webhooks/not-a-uuid'],
    ]
    for (const [method, path, body] of calls) {
      const response = await callRoute(deps, method, path, { ...as, body })
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(((await response.json()) as ErrorBody).error.code).toBe('not_found')
    }
    const list = await callRoute(deps, 'GET', '/api/v1/webhooks', as)
    expect(((await list.json()) as { items: { id: string }[] }).items.map((item) => item.id)).not.toContain(
      id,
    )
    const [row] = await harness.database.sql`select enabled, secret from webhook_endpoints where id = ${id}`
    expect(row?.enabled).toBe(true)
    const [deliveries] = await harness.database
      .sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${id}`
    expect(deliveries?.n).toBe(0)
  })
})
