import { OUTBOX_CHANNEL } from '@fairlane/core'
import { createTemplate } from '@fairlane/db/queries/templates'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { getMessage } from './get-message'
import { postMessage } from './post-message'

const env = setupTestEnvironment('web-api')

let harness: WebHarness
let deps: ApiDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
let other: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  tenant = await seedTenant(harness, 'Acme')
  other = await seedTenant(harness, 'Globex')
  await createTemplate(harness.database.db, {
    tenantId: tenant.tenantId,
    slug: 'welcome',
    name: 'Welcome',
    subject: 'Welcome to {{company}}, {{name}}',
    html: '<p>Hello {{name}}, welcome to {{company}}.</p>',
  })
})

afterAll(async () => {
  await harness?.close()
})

const post = (body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  postMessage(
    jsonRequest('/api/v1/messages', { token: options.key ?? tenant.apiKey, body, headers: options.headers }),
    deps,
  )

const get = (id: string, key = tenant.apiKey) =>
  getMessage(jsonRequest(`/api/v1/messages/${id}`, { token: key }), id, deps)

async function counts(): Promise<{ messages: number; outbox: number }> {
  const [row] = await harness.database.sql<{ messages: number; outbox: number }[]>`
    select (select count(*)::int from messages) as messages, (select count(*)::int from outbox) as outbox`
  if (!row) throw new Error('no counts')
  return row
}

let otpAddress = 0
/** OTP tests each use their own address, so the per-recipient limit only bites where it is tested. */
const freshAddress = () => `user${++otpAddress}@example.test`

describe('POST /api/v1/messages', () => {
  it('accepts an OTP: 202, one queued row, one unpublished outbox row, and a NOTIFY', async () => {
    const listener = postgres(env.databaseUrl, { max: 1 })
    const notifications: string[] = []
    await listener.listen(OUTBOX_CHANNEL, (payload) => notifications.push(payload))
    try {
      const to = freshAddress()
      const response = await post({ to, template: 'otp', variables: { code: '482913', appName: 'Acme' } })
      expect(response.status).toBe(202)
      const body = await readJson(response)
      expect(body).toEqual({ id: expect.any(String), status: 'queued', lane: 'critical' })
      expect(response.headers.get('location')).toBe(`/api/v1/messages/${body.id}`)

      const rows = await harness.database.sql`select * from messages where id = ${body.id as string}`
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        tenant_id: tenant.tenantId,
        status: 'queued',
        lane: 'critical',
        template: 'otp',
        to_address: to,
        subject: 'Your Acme verification code',
        variables: { code: '482913', appName: 'Acme' },
        generation: 0,
        idempotency_key: null,
      })
      expect(rows[0]?.queued_at).not.toBeNull()
      expect(rows[0]?.html).toContain('482913')
      expect(rows[0]?.text).toContain('482913')
      expect(rows[0]?.request_hash).toMatch(/^[0-9a-f]{64}$/)

      const outbox = await harness.database
        .sql`select * from outbox where payload->>'messageId' = ${body.id as string}`
      expect(outbox).toHaveLength(1)
      expect(outbox[0]).toMatchObject({
        tenant_id: tenant.tenantId,
        topic: 'message.publish',
        published_at: null,
        payload: { v: 1, messageId: body.id, tenantId: tenant.tenantId, lane: 'critical', generation: 0 },
      })
      await eventually(() => notifications.length > 0, { what: 'NOTIFY on fairlane_outbox' })
    } finally {
      await listener.end({ timeout: 1 })
    }
  })

  it('names the tenant in a login code mail when the request gives no appName', async () => {
    const response = await post({ to: freshAddress(), template: 'otp', variables: { code: '112233' } })
    expect(response.status).toBe(202)
    const { id } = await readJson<{ id: string }>(response)
    const [row] = await harness.database.sql`select subject, text from messages where id = ${id}`
    expect(row).toMatchObject({
      subject: 'Your Acme verification code',
      text: expect.stringContaining('Enter this code in Acme to continue:'),
    })
  })

  it('sends password-reset on the critical lane, custom content and tenant templates on default', async () => {
    const reset = await post({
      to: freshAddress(),
      template: 'password-reset',
      variables: { resetUrl: 'https://acme.test/r/1' },
    })
    expect((await readJson(reset)).lane).toBe('critical')

    const custom = await post({
      to: 'ann@example.test',
      subject: 'Your invoice',
      html: '<p>Invoice <b>42</b></p>',
    })
    expect(custom.status).toBe(202)
    const customBody = await readJson(custom)
    expect(customBody.lane).toBe('default')
    const [customRow] = await harness.database
      .sql`select subject, html, text, template from messages where id = ${customBody.id as string}`
    expect(customRow).toMatchObject({ subject: 'Your invoice', text: 'Invoice 42', template: null })

    const welcome = await post({
      to: 'bob@example.test',
      template: 'welcome',
      variables: { name: 'Bob & Co', company: 'Acme' },
    })
    expect(welcome.status).toBe(202)
    const welcomeBody = await readJson(welcome)
    expect(welcomeBody.lane).toBe('default')
    const [welcomeRow] = await harness.database
      .sql`select subject, html, text from messages where id = ${welcomeBody.id as string}`
    expect(welcomeRow).toMatchObject({
      subject: 'Welcome to Acme, Bob & Co',
      html: '<p>Hello Bob &amp; Co, welcome to Acme.</p>',
      text: 'Hello Bob & Co, welcome to Acme.',
    })
  })
})

describe('GET /api/v1/messages/:id', () => {
  it('returns the message of the key’s tenant', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: 'carol@example.test', subject: 'Hi', text: 'Hello' }),
    )
    const response = await get(id)
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body).toEqual({
      id,
      status: 'queued',
      lane: 'default',
      attempts: 0,
      createdAt: expect.any(String),
      attachments: [],
      // Written by the accept's own statement.
      events: [{ type: 'accepted', at: body.createdAt, detail: { lane: 'default' } }],
    })
    expect(new Date(body.createdAt as string).getTime()).toBeGreaterThan(Date.now() - 60_000)
  })

  it('answers the message’s events in order, with their details, and a later bounce’s status', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: 'fay@example.test', subject: 'Hi', text: 'Hello' }),
    )
    const diagnostic = 'smtp; 550 5.1.1 <script>x</script> user unknown'
    // What the relay, the worker and the inbound server write after the accept, at their times.
    await harness.database.sql`
      insert into message_events (tenant_id, message_id, type, at, detail) values
        (${tenant.tenantId}, ${id}, 'queued', now() + interval '1 second', '{"lane":"default"}'),
        (${tenant.tenantId}, ${id}, 'sent', now() + interval '2 seconds', '{"response":"250 2.0.0 OK id=abc"}'),
        (${tenant.tenantId}, ${id}, 'bounced', now() + interval '3 seconds',
          ${JSON.stringify({ kind: 'hard', status: '5.1.1', action: 'failed', diagnostic })}::jsonb)`
    await harness.database.sql`update messages set status = 'bounced', sent_at = now() where id = ${id}`
    const body = await readJson<{ status: string; events: { type: string; at: string; detail?: unknown }[] }>(
      await get(id),
    )
    expect(body.status).toBe('bounced')
    expect(body.events.map((event) => event.type)).toEqual(['accepted', 'queued', 'sent', 'bounced'])
    expect(body.events[2]?.detail).toEqual({ response: '250 2.0.0 OK id=abc' })
    expect(body.events[3]?.detail).toEqual({ kind: 'hard', status: '5.1.1', action: 'failed', diagnostic })
    const times = body.events.map((event) => Date.parse(event.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // Another tenant's key learns nothing of them.
    expect((await get(id, other.apiKey)).status).toBe(404)
  })

  it('shows a classified lastErrorCode with a short lastError, never the raw reply, and sentAt once they exist', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: 'dan@example.test', subject: 'Hi', text: 'Hello' }),
    )
    await harness.database.sql`update messages set status = 'sent', attempts = 2,
      last_error = '451 4.7.1 <dan@example.test> greylisted by mx3.relay.internal',
      last_error_code = 'deferred', sent_at = now() where id = ${id}`
    const body = await readJson(await get(id))
    expect(body).toMatchObject({
      status: 'sent',
      attempts: 2,
      lastErrorCode: 'deferred',
      lastError: 'the receiving server asked to try again later',
      sentAt: expect.any(String),
    })
    // Not the reply's words; a bare "451" would also match a random id or time in the body.
    expect(JSON.stringify(body)).not.toMatch(/relay\.internal|greylisted|4\.7\.1|451 /)
  })

  it('says a message is held and why when its sending domain cannot sign', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: 'held@example.test', subject: 'Hi', text: 'Hello' }),
    )
    // As the worker leaves it (markHeld): the admins' detail in last_error, the code for the tenant.
    await harness.database.sql`update messages set status = 'held',
      last_error = 'the sending domain news.example.test is failed, not verified',
      last_error_code = 'sender_domain_unverified' where id = ${id}`
    expect(await readJson(await get(id))).toMatchObject({
      status: 'held',
      lastErrorCode: 'sender_domain_unverified',
      lastError: 'held until the sending domain verifies again (its DNS records do not check out)',
    })
  })

  it('says when the retention removed the body (bodyRemovedAt), and not before', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: freshAddress(), template: 'otp', variables: { code: '123456' } }),
    )
    expect(await readJson(await get(id))).not.toHaveProperty('bodyRemovedAt')
    await harness.database.sql`
      update messages set status = 'sent', html = null, text = null, variables = null,
        body_removed_at = '2026-12-01T03:15:00Z' where id = ${id}`
    expect(await readJson(await get(id))).toMatchObject({
      status: 'sent',
      bodyRemovedAt: '2026-12-01T03:15:00.000Z',
    })
  })

  it('answers 404 for another tenant’s message, a malformed id and a missing one alike', async () => {
    const { id } = await readJson<{ id: string }>(
      await post({ to: 'erin@example.test', subject: 'Hi', text: 'Hello' }),
    )
    for (const [lookup, key] of [
      [id, other.apiKey],
      ['not-a-uuid', tenant.apiKey],
      ['00000000-0000-4000-8000-000000000000', tenant.apiKey],
    ] as const) {
      const response = await get(lookup, key)
      expect(response.status).toBe(404)
      expect((await readJson<{ error: { code: string } }>(response)).error.code).toBe('not_found')
    }
  })
})

describe('API keys', () => {
  it('refuses a missing, unknown, wrong or revoked key with 401', async () => {
    const revoked = await seedTenant(harness, 'Revoked Ltd')
    await harness.database.sql`update api_keys set revoked_at = now() where id = ${revoked.keyId}`
    const wrongSecret = `${tenant.apiKey.slice(0, 12)}${'x'.repeat(tenant.apiKey.length - 12)}`
    const cases: [string | null, RegExp][] = [
      [null, /Missing API key/],
      ['fl_unknownunknownunknownunknown', /Invalid API key/],
      [wrongSecret, /Invalid API key/],
      [revoked.apiKey, /revoked/],
    ]
    const before = await counts()
    for (const [key, message] of cases) {
      const request = jsonRequest('/api/v1/messages', {
        token: key,
        body: { to: 'a@b.test', subject: 'x', text: 'y' },
      })
      const response = await postMessage(request, deps)
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/)
      const body = await readJson<{ error: { code: string; message: string } }>(response)
      expect(body.error.code).toBe('unauthorized')
      expect(body.error.message).toMatch(message)
    }
    expect(await counts()).toEqual(before)
  })

  it('records last use at most once a minute', async () => {
    const fresh = await seedTenant(harness, 'Touchy')
    await get('00000000-0000-4000-8000-000000000000', fresh.apiKey)
    const [first] = await harness.database.sql`select last_used_at from api_keys where id = ${fresh.keyId}`
    expect(first?.last_used_at).not.toBeNull()
    await get('00000000-0000-4000-8000-000000000000', fresh.apiKey)
    const [second] = await harness.database.sql`select last_used_at from api_keys where id = ${fresh.keyId}`
    expect(second?.last_used_at).toEqual(first?.last_used_at)
  })
})
