import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'

/**
 * The public and admin APIs over real HTTP, against the running platform. These do not wait for
 * delivery (the worker side has its own suites); they pin the status codes, shapes and headers that
 * scripts rely on (CONTRACT.md).
 */

const api = { authorization: `Bearer ${E2E.demoApiKey}` }
const admin = { authorization: `Bearer ${E2E.adminToken}` }
const address = () => `e2e-${randomUUID()}@example.test`

test('POST /api/v1/messages accepts an OTP on the critical lane and GET reads it back', async ({
  request,
}) => {
  const response = await request.post('/api/v1/messages', {
    headers: api,
    data: { to: address(), template: 'otp', variables: { code: '482913', appName: 'E2E' } },
  })
  expect(response.status()).toBe(202)
  const body = await response.json()
  expect(body).toEqual({ id: expect.any(String), status: 'queued', lane: 'critical' })

  const read = await request.get(`/api/v1/messages/${body.id}`, { headers: api })
  expect(read.status()).toBe(200)
  const message = await read.json()
  expect(message).toMatchObject({ id: body.id, lane: 'critical', attempts: expect.any(Number) })
  expect(['queued', 'sending', 'sent']).toContain(message.status)
})

test('custom content goes to the default lane; an Idempotency-Key replay returns the same id', async ({
  request,
}) => {
  const data = { to: address(), subject: 'E2E receipt', html: '<p>Thanks!</p>' }
  const headers = { ...api, 'idempotency-key': randomUUID() }
  const first = await request.post('/api/v1/messages', { headers, data })
  const second = await request.post('/api/v1/messages', { headers, data })
  expect(first.status()).toBe(202)
  expect(second.status()).toBe(202)
  expect(second.headers()['idempotent-replayed']).toBe('true')
  expect((await second.json()).id).toBe((await first.json()).id)
  expect((await first.json()).lane).toBe('default')

  const reused = await request.post('/api/v1/messages', { headers, data: { ...data, subject: 'Other' } })
  expect(reused.status()).toBe(422)
})

test('bad input answers JSON errors naming what is wrong', async ({ request }) => {
  const cases = [
    { data: { to: 'nope', template: 'otp', variables: { code: '1234' } }, status: 400, path: 'to' },
    { data: { to: address(), template: 'otp', variables: {} }, status: 400, path: 'variables.code' },
    { data: { to: address(), template: 'no-such-template' }, status: 400, path: 'template' },
    { data: { to: address(), subject: 'Hi\r\nBcc: x@evil.test', text: 'x' }, status: 400, path: 'subject' },
  ]
  for (const item of cases) {
    const response = await request.post('/api/v1/messages', { headers: api, data: item.data })
    expect(response.status()).toBe(item.status)
    const { error } = await response.json()
    expect(error.code).toBe('validation_failed')
    expect(error.details.map((issue: { path: string }) => issue.path)).toContain(item.path)
  }

  const malformed = await request.post('/api/v1/messages', {
    headers: { ...api, 'content-type': 'application/json' },
    data: '{"to":',
  })
  expect(malformed.status()).toBe(400)
  const form = await request.post('/api/v1/messages', { headers: api, form: { to: address() } })
  expect(form.status()).toBe(415)
  const huge = await request.post('/api/v1/messages', {
    headers: api,
    data: { to: address(), subject: 'Big', html: 'x'.repeat(70_000) },
  })
  expect(huge.status()).toBe(413)
})

test('a wrong key is 401 and another tenant’s message is 404', async ({ request }) => {
  const anonymous = await request.post('/api/v1/messages', {
    headers: { authorization: 'Bearer fl_not-a-key-at-all-000000000' },
    data: { to: address(), subject: 'x', text: 'y' },
  })
  expect(anonymous.status()).toBe(401)
  expect((await anonymous.json()).error.code).toBe('unauthorized')

  const created = await request.post('/api/admin/tenants', {
    headers: admin,
    data: { name: `E2E ${randomUUID()}` },
  })
  expect(created.status()).toBe(201)
  const { apiKey } = await created.json()
  const mine = await request.post('/api/v1/messages', {
    headers: api,
    data: { to: address(), subject: 'x', text: 'y' },
  })
  const { id } = await mine.json()
  const theirs = await request.get(`/api/v1/messages/${id}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  expect(theirs.status()).toBe(404)
})

test('admin: tenants, plans, queues and dead letters behind the admin token', async ({ request }) => {
  expect((await request.get('/api/admin/queues')).status()).toBe(401)

  const created = await request.post('/api/admin/tenants', {
    headers: admin,
    data: { name: 'E2E plan', plan: { ratePerSec: 5, burst: 10, weight: 2 } },
  })
  const { id } = await created.json()
  const patched = await request.patch(`/api/admin/tenants/${id}`, {
    headers: admin,
    data: { plan: { weight: 3 } },
  })
  expect(patched.status()).toBe(200)
  expect((await patched.json()).plan).toEqual({ ratePerSec: 5, burst: 10, weight: 3 })

  const queues = await request.get('/api/admin/queues', { headers: admin })
  expect(queues.status()).toBe(200)
  const stats = await queues.json()
  for (const lane of ['critical', 'default', 'bulk']) {
    expect(Object.keys(stats[lane]).sort()).toEqual(
      ['active', 'completed', 'delayed', 'failed', 'oldestWaitingAgeMs', 'waiting'].sort(),
    )
  }
  expect(typeof stats.deadLetter).toBe('number')

  const dlq = await request.get('/api/admin/dlq?limit=10', { headers: admin })
  expect(dlq.status()).toBe(200)
  expect(Array.isArray(await dlq.json())).toBe(true)
  expect(dlq.headers()['x-total-count']).toMatch(/^\d+$/)
  expect((await request.post('/api/admin/dlq/no-such-job/replay', { headers: admin })).status()).toBe(404)
})
