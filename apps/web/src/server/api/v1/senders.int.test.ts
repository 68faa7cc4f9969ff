import { updateDefaultSender } from '@fairlane/db/queries/senders'
import { createTemplate } from '@fairlane/db/queries/templates'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { insertSendingDomain } from '../../test-support/sending-domains'
import type { ApiDeps } from './deps'
import { getCampaign } from './get-campaign'
import { postCampaign } from './post-campaign'
import { postMessage } from './post-message'
import { changeTemplate, getTemplateByRef, postTemplate } from './templates'

const env = setupTestEnvironment('web-senders')

let harness: WebHarness
let deps: ApiDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
let other: Awaited<ReturnType<typeof seedTenant>>
let verifiedId: string
let failedId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  tenant = await seedTenant(harness, 'Acme')
  other = await seedTenant(harness, 'Globex')
  const { sql } = harness.database
  verifiedId = (
    await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'acme.test', status: 'verified' })
  ).id
  failedId = (
    await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'old.acme.test', status: 'failed' })
  ).id
  await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'pending.test', status: 'pending' })
  await insertSendingDomain(sql, { tenantId: other.tenantId, name: 'globex.test', status: 'verified' })
  await createTemplate(harness.database.db, {
    tenantId: tenant.tenantId,
    slug: 'receipt',
    name: 'Receipt',
    subject: 'Your receipt',
    text: 'Thanks.',
    sender: { from: '"Billing" <billing@acme.test>', replyTo: 'accounts@acme.test' },
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

const custom = (extra: Record<string, unknown> = {}) => ({
  to: 'ada@example.test',
  subject: 'Hello',
  text: 'Hi there',
  ...extra,
})

async function senderOf(id: string) {
  const [row] = await harness.database.sql<
    { from_address: string | null; reply_to: string | null; sending_domain_id: string | null }[]
  >`select from_address, reply_to, sending_domain_id from messages where id = ${id}`
  if (!row) throw new Error(`no message ${id}`)
  return row
}

async function accepted(response: Response) {
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(202)
  const { id } = await readJson<{ id: string }>(response)
  return senderOf(id)
}

async function messageCount(): Promise<number> {
  const [row] = await harness.database.sql<{ count: number }[]>`select count(*)::int as count from messages`
  return row?.count ?? 0
}

async function refused(response: Response, status: number, path: string, message: string) {
  expect(response.status).toBe(status)
  const { error } = await readJson<{ error: { code: string; details: { path: string; message: string }[] } }>(
    response,
  )
  expect(error.details).toContainEqual({ path, message: expect.stringContaining(message) })
  return error
}

describe('POST /api/v1/messages with from and replyTo', () => {
  it('stores the normalised From, the Reply-To and the verified domain', async () => {
    const row = await accepted(
      await post(custom({ from: 'News Team <news@ACME.test>', replyTo: 'Help <help@elsewhere.example>' })),
    )
    expect(row).toEqual({
      from_address: '"News Team" <news@acme.test>',
      reply_to: '"Help" <help@elsewhere.example>',
      sending_domain_id: verifiedId,
    })
  })

  it('refuses a domain that is not verified yet with 422 naming from, writing nothing', async () => {
    const before = await messageCount()
    const error = await refused(
      await post(custom({ from: 'news@pending.test' })),
      422,
      'from',
      'not verified',
    )
    expect(error.code).toBe('unprocessable')
    await refused(await post(custom({ from: 'news@old.acme.test' })), 422, 'from', 'it is failed')
    expect(await messageCount()).toBe(before)
  })

  it('refuses another tenant’s verified domain and an unknown one with 422', async () => {
    await refused(
      await post(custom({ from: 'news@globex.test' })),
      422,
      'from',
      'not one of your sending domains',
    )
    await refused(await post(custom({ from: 'news@nowhere.example' })), 422, 'from', 'not one of your')
    // The other tenant can use its own.
    const row = await accepted(await post(custom({ from: 'news@globex.test' }), { key: other.apiKey }))
    expect(row.from_address).toBe('news@globex.test')
  })

  it('refuses CRLF and an over-long display name with 400 naming the field', async () => {
    const crlf = await refused(
      await post(custom({ from: 'news@acme.test\r\nBcc: victim@example.test' })),
      400,
      'from',
      'single line',
    )
    expect(crlf.code).toBe('validation_failed')
    await refused(await post(custom({ from: `"${'n'.repeat(201)}" <news@acme.test>` })), 400, 'from', '200')
    await accepted(await post(custom({ from: `"${'n'.repeat(200)}" <news@acme.test>` })))
    await refused(await post(custom({ replyTo: 'help@acme.test\nX: y' })), 400, 'replyTo', 'single line')
    await refused(await post(custom({ replyTo: 'not an address' })), 400, 'replyTo', 'valid email address')
  })

  it('sends from the platform without a from and without a default', async () => {
    const row = await accepted(await post(custom()))
    expect(row).toEqual({ from_address: null, reply_to: null, sending_domain_id: null })
    const otp = await accepted(
      await post({ to: 'otp@example.test', template: 'otp', variables: { code: '123456' } }),
    )
    expect(otp.from_address).toBeNull()
  })

  it('uses a tenant template’s sender, and the request’s own when it names one', async () => {
    const templated = await accepted(await post({ to: 'ada@example.test', template: 'receipt' }))
    expect(templated).toEqual({
      from_address: '"Billing" <billing@acme.test>',
      reply_to: 'accounts@acme.test',
      sending_domain_id: verifiedId,
    })
    const named = await accepted(
      await post({ to: 'ada@example.test', template: 'receipt', from: 'Shop <shop@acme.test>' }),
    )
    expect(named).toEqual({
      from_address: '"Shop" <shop@acme.test>',
      reply_to: 'accounts@acme.test',
      sending_domain_id: verifiedId,
    })
  })

  it('makes from and replyTo part of the idempotent request', async () => {
    const headers = { 'idempotency-key': 'sender-key-1' }
    const first = await post(custom({ from: 'news@acme.test' }), { headers })
    expect(first.status).toBe(202)
    const again = await post(custom({ from: 'news@acme.test' }), { headers })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const changed = await post(custom({ from: 'other@acme.test' }), { headers })
    expect(changed.status).toBe(422)
    expect((await readJson<{ error: { code: string } }>(changed)).error.code).toBe('idempotency_key_reused')
  })
})

describe('the tenant default sender', () => {
  it('applies to mail that names no from, and the request’s own still wins', async () => {
    await updateDefaultSender(harness.database.db, {
      tenantId: tenant.tenantId,
      from: '"Acme" <hello@acme.test>',
      replyTo: 'support@acme.test',
    })
    try {
      expect(await accepted(await post(custom()))).toEqual({
        from_address: '"Acme" <hello@acme.test>',
        reply_to: 'support@acme.test',
        sending_domain_id: verifiedId,
      })
      expect(await accepted(await post(custom({ from: 'news@acme.test', replyTo: 'r@x.example' })))).toEqual({
        from_address: 'news@acme.test',
        reply_to: 'r@x.example',
        sending_domain_id: verifiedId,
      })
      // Another tenant's mail is not touched by it.
      const globex = await accepted(await post(custom(), { key: other.apiKey }))
      expect(globex.from_address).toBeNull()
    } finally {
      await updateDefaultSender(harness.database.db, { tenantId: tenant.tenantId, from: null, replyTo: null })
    }
  })

  it('still names a default whose domain failed since (the worker holds the mail)', async () => {
    await updateDefaultSender(harness.database.db, {
      tenantId: tenant.tenantId,
      from: 'hello@old.acme.test',
      replyTo: null,
    })
    try {
      expect(await accepted(await post(custom()))).toMatchObject({
        from_address: 'hello@old.acme.test',
        sending_domain_id: failedId,
      })
    } finally {
      await updateDefaultSender(harness.database.db, { tenantId: tenant.tenantId, from: null, replyTo: null })
    }
  })
})

describe('templates with a sender', () => {
  const templateCall = (path: string, method: string, body?: unknown, key = tenant.apiKey) =>
    jsonRequest(path, { token: key, method, body })

  it('takes from and replyTo on create, answers them, and checks the domain', async () => {
    const created = await postTemplate(
      templateCall('/api/v1/templates', 'POST', {
        slug: 'welcome-sender',
        subject: 'Welcome',
        text: 'Hi',
        from: 'Team <team@acme.test>',
        replyTo: 'help@acme.test',
      }),
      deps,
    )
    expect(created.status).toBe(201)
    expect(await readJson(created)).toMatchObject({
      from: '"Team" <team@acme.test>',
      replyTo: 'help@acme.test',
    })

    const pending = await postTemplate(
      templateCall('/api/v1/templates', 'POST', {
        slug: 'welcome-pending',
        subject: 'Welcome',
        text: 'Hi',
        from: 'team@pending.test',
      }),
      deps,
    )
    await refused(pending, 422, 'from', 'not verified')
    const foreign = await postTemplate(
      templateCall('/api/v1/templates', 'POST', {
        slug: 'welcome-foreign',
        subject: 'W',
        text: 'Hi',
        from: 'team@globex.test',
      }),
      deps,
    )
    await refused(foreign, 422, 'from', 'not one of your sending domains')
    const crlf = await postTemplate(
      templateCall('/api/v1/templates', 'POST', {
        slug: 'w-crlf',
        subject: 'W',
        text: 'Hi',
        from: 'a@acme.test\r\n',
      }),
      deps,
    )
    await refused(crlf, 400, 'from', 'single line')
  })

  it('changes or clears the sender without a new version (PUT removes what it leaves out)', async () => {
    const path = '/api/v1/templates/welcome-sender'
    const patched = await changeTemplate(
      templateCall(path, 'PATCH', { from: 'news@acme.test' }),
      'welcome-sender',
      deps,
      'patch',
    )
    expect(await readJson(patched)).toMatchObject({
      from: 'news@acme.test',
      replyTo: 'help@acme.test',
      version: 1,
    })
    const put = await changeTemplate(
      templateCall(path, 'PUT', { subject: 'Welcome', text: 'Hi' }),
      'welcome-sender',
      deps,
      'put',
    )
    expect(await readJson(put)).toMatchObject({ from: null, replyTo: null, version: 1 })
    const refusedPatch = await changeTemplate(
      templateCall(path, 'PATCH', { from: 'news@pending.test' }),
      'welcome-sender',
      deps,
      'patch',
    )
    await refused(refusedPatch, 422, 'from', 'not verified')
    const read = await getTemplateByRef(templateCall(path, 'GET'), 'welcome-sender', deps)
    expect(await readJson(read)).toMatchObject({ from: null })
  })

  it('does not let another tenant read or change a template’s sender', async () => {
    const read = await getTemplateByRef(
      templateCall('/api/v1/templates/receipt', 'GET', undefined, other.apiKey),
      'receipt',
      deps,
    )
    expect(read.status).toBe(404)
    const change = await changeTemplate(
      templateCall('/api/v1/templates/receipt', 'PATCH', { from: 'x@globex.test' }, other.apiKey),
      'receipt',
      deps,
      'patch',
    )
    expect(change.status).toBe(404)
  })
})

describe('campaigns with a sender', () => {
  const campaign = (extra: Record<string, unknown>) => ({
    name: 'Winter news',
    subject: 'News',
    html: '<p>Hi {{name}}</p>',
    sendAt: new Date(Date.now() + 86_400_000).toISOString(),
    ...extra,
  })
  const postAs = (body: unknown, key = tenant.apiKey) =>
    postCampaign(jsonRequest('/api/v1/campaigns', { token: key, body }), deps)

  it('schedules with a from on a verified domain and answers it on GET', async () => {
    const created = await postAs(campaign({ from: 'News <news@acme.test>', replyTo: 'help@acme.test' }))
    expect(created.status).toBe(201)
    const { id } = await readJson<{ id: string }>(created)
    const read = await getCampaign(jsonRequest(`/api/v1/campaigns/${id}`, { token: tenant.apiKey }), id, deps)
    expect(await readJson(read)).toMatchObject({ from: '"News" <news@acme.test>', replyTo: 'help@acme.test' })
    const foreign = await getCampaign(
      jsonRequest(`/api/v1/campaigns/${id}`, { token: other.apiKey }),
      id,
      deps,
    )
    expect(foreign.status).toBe(404)
  })

  it('refuses an unverified, foreign or malformed from, naming it', async () => {
    await refused(await postAs(campaign({ from: 'news@pending.test' })), 422, 'from', 'not verified')
    await refused(await postAs(campaign({ from: 'news@globex.test' })), 422, 'from', 'not one of your')
    await refused(
      await postAs(campaign({ from: 'news@acme.test\r\nBcc: x@y.test' })),
      400,
      'from',
      'single line',
    )
    await refused(await postAs(campaign({ from: `${'n'.repeat(201)} <news@acme.test>` })), 400, 'from', '200')
  })
})
