import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'

const auth = { authorization: `Bearer ${E2E.demoApiKey}` }

test('an OTP accepted by the API reaches the mail sink and reads sent', async ({ request }) => {
  const to = `e2e-otp-${Date.now()}@example.test`
  const accepted = await request.post('/api/v1/messages', {
    headers: auth,
    data: { to, template: 'otp', variables: { code: '482913', appName: 'E2E Shop' } },
  })
  expect(accepted.status()).toBe(202)
  const body = await accepted.json()
  expect(body).toMatchObject({ status: 'queued', lane: 'critical' })

  await expect
    .poll(async () => (await request.get(`${E2E.inboxUrl}/messages?to=${encodeURIComponent(to)}`)).json(), {
      timeout: 15_000,
    })
    .toHaveLength(1)
  const [delivered] = await (
    await request.get(`${E2E.inboxUrl}/messages?to=${encodeURIComponent(to)}`)
  ).json()
  expect(delivered.text).toContain('482913')
  expect(delivered.messageId).toContain(body.id)

  await expect
    .poll(
      async () => (await (await request.get(`/api/v1/messages/${body.id}`, { headers: auth })).json()).status,
      {
        timeout: 15_000,
      },
    )
    .toBe('sent')
})

test('an internationalised address (SMTPUTF8) is accepted and delivered; a non-address is refused naming it', async ({
  request,
}) => {
  const to = `chloé-${Date.now()}@exemple.test`
  const accepted = await request.post('/api/v1/messages', {
    headers: auth,
    data: { to, template: 'otp', variables: { code: '246810' } },
  })
  expect(accepted.status()).toBe(202)
  const { id } = await accepted.json()
  await expect
    .poll(
      async () => (await (await request.get(`/api/v1/messages/${id}`, { headers: auth })).json()).status,
      { timeout: 15_000 },
    )
    .toBe('sent')
  const inbox = await (await request.get(`${E2E.inboxUrl}/messages?to=${encodeURIComponent(to)}`)).json()
  expect(inbox).toHaveLength(1)
  expect(inbox[0].text).toContain('246810')

  const refused = await request.post('/api/v1/messages', {
    headers: auth,
    data: { to: 'chloé@exemple', template: 'otp', variables: { code: '246810' } },
  })
  expect(refused.status()).toBe(400)
  expect(JSON.stringify(await refused.json())).toContain('must be a valid email address')
})

test('the API refuses a request without a valid key, with a JSON error', async ({ request }) => {
  const response = await request.post('/api/v1/messages', {
    headers: { authorization: 'Bearer fl_not-a-real-key-000000000000000000' },
    data: { to: 'x@example.test', template: 'otp', variables: { code: '123456' } },
  })
  expect(response.status()).toBe(401)
  expect((await response.json()).error.code).toBe('unauthorized')
})

test('the same Idempotency-Key sent twice gives one message and one delivery', async ({ request }) => {
  const to = `e2e-idem-${Date.now()}@example.test`
  const send = () =>
    request.post('/api/v1/messages', {
      headers: { ...auth, 'idempotency-key': `reset-${to}` },
      data: { to, template: 'password-reset', variables: { resetUrl: 'https://shop.example/reset/abc' } },
    })
  const [first, second] = await Promise.all([send(), send()])
  expect(first.status()).toBe(202)
  expect(second.status()).toBe(202)
  const id = (await first.json()).id
  expect((await second.json()).id).toBe(id)
  await expect
    .poll(
      async () => (await (await request.get(`/api/v1/messages/${id}`, { headers: auth })).json()).status,
      {
        timeout: 15_000,
      },
    )
    .toBe('sent')
  const delivered = await (await request.get(`${E2E.inboxUrl}/messages?to=${encodeURIComponent(to)}`)).json()
  expect(delivered).toHaveLength(1)
  expect(delivered[0].text).toContain('https://shop.example/reset/abc')
})
