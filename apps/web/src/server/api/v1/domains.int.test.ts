import { createSocket, type Socket } from 'node:dgram'
import {
  publishDomainRecords,
  setupTestEnvironment,
  startTestDnsServer,
  type TestDnsServer,
} from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import {
  deleteDomainById,
  getDomainById,
  getDomains,
  postDomain,
  postDomainRotateDkim,
  postDomainVerify,
} from './domains'
import type { DomainRecordResponse, DomainResponse } from './responses'

/**
 * `/api/v1/domains` end to end on the server: the handlers, the core use cases, PostgreSQL, and DNS
 * lookups through node:dns against a real DNS server (the test's, via DNS_SERVERS) serving exactly
 * the records the domain view lists.
 */
const env = setupTestEnvironment('web-domains')

let harness: WebHarness
let dns: TestDnsServer
let deps: ApiDeps
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  dns = await startTestDnsServer()
  deps = harness.apiDeps({ dnsServers: [dns.address] })
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})
afterAll(async () => {
  await dns?.close()
  await harness?.close()
})

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } }

const add = (body: unknown, key = acme.apiKey, using = deps) =>
  postDomain(jsonRequest('/api/v1/domains', { token: key, body }), using)
const get = (id: string, key = acme.apiKey) =>
  getDomainById(jsonRequest(`/api/v1/domains/${id}`, { token: key }), id, deps)
const verify = (id: string, key = acme.apiKey, using = deps) =>
  postDomainVerify(jsonRequest(`/api/v1/domains/${id}/verify`, { token: key, method: 'POST' }), id, using)
const rotate = (id: string, key = acme.apiKey) =>
  postDomainRotateDkim(
    jsonRequest(`/api/v1/domains/${id}/rotate-dkim`, { token: key, method: 'POST' }),
    id,
    deps,
  )
const remove = (id: string, key = acme.apiKey) =>
  deleteDomainById(jsonRequest(`/api/v1/domains/${id}`, { token: key, method: 'DELETE' }), id, deps)

async function added(name: string, key = acme.apiKey): Promise<DomainResponse> {
  const response = await add({ name }, key)
  expect(response.status).toBe(201)
  return readJson<DomainResponse>(response)
}

async function verified(id: string, key = acme.apiKey): Promise<DomainResponse> {
  const response = await verify(id, key)
  expect(response.status).toBe(200)
  return readJson<DomainResponse>(response)
}

const recordOf = (domain: DomainResponse, purpose: string, selector?: string): DomainRecordResponse => {
  const record = domain.records.find(
    (entry) => entry.purpose === purpose && (selector === undefined || entry.selector === selector),
  )
  if (!record) throw new Error(`no ${purpose} record in ${JSON.stringify(domain.records)}`)
  return record
}

async function firstIssue(response: Response) {
  const { error } = await readJson<ErrorBody>(response)
  return { code: error.code, message: error.message, ...error.details?.[0] }
}

/** Asserts no private key, in PEM or as stored ciphertext, is anywhere in an answer. */
async function expectNoPrivateKey(response: Response, domainId: string): Promise<void> {
  const text = await response.clone().text()
  expect(text).not.toContain('PRIVATE KEY')
  const rows = await harness.database.sql<{ ciphertext: string }[]>`
    select private_key_ciphertext as ciphertext from dkim_keys where domain_id = ${domainId}`
  expect(rows.length).toBeGreaterThan(0)
  for (const row of rows) {
    expect(text).not.toContain(row.ciphertext)
    for (const part of row.ciphertext.split('.')) expect(text).not.toContain(part)
  }
}

describe('adding a domain', () => {
  it('answers 201 with the records to publish, all pending, and never a private key', async () => {
    const response = await add({ name: 'Shop.Example.COM.' })
    expect(response.status).toBe(201)
    const domain = await readJson<DomainResponse>(response.clone())
    await expectNoPrivateKey(response, domain.id)
    expect(response.headers.get('location')).toBe(`/api/v1/domains/${domain.id}`)
    expect(domain).toMatchObject({ name: 'shop.example.com', status: 'pending', failureReason: null })
    expect(domain.dkim).toMatchObject({ phase: 'awaiting-first-record', signingSelector: null })
    const dkim = recordOf(domain, 'dkim')
    expect(dkim.selector).toMatch(/^fl\d{6}[a-z2-7]{4}$/)
    expect(dkim).toMatchObject({
      type: 'TXT',
      name: `${dkim.selector}._domainkey.shop.example.com`,
      status: 'pending',
      required: true,
    })
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjAN/)
    expect(recordOf(domain, 'return-path')).toMatchObject({
      type: 'CNAME',
      name: 'fl-bounces.shop.example.com',
      value: 'bounces.fairlane.test',
      required: true,
      status: 'pending',
    })
    expect(recordOf(domain, 'spf')).toMatchObject({
      required: false,
      value: 'v=spf1 include:bounces.fairlane.test ~all',
    })
    expect(recordOf(domain, 'dmarc')).toMatchObject({ required: false, name: '_dmarc.shop.example.com' })
    expect(domain.records.some((record) => record.purpose === 'ownership')).toBe(false)
    const list = await getDomains(jsonRequest('/api/v1/domains', { token: acme.apiKey }), deps)
    await expectNoPrivateKey(list, domain.id)
    expect((await readJson<{ items: DomainResponse[] }>(list)).items.map((item) => item.name)).toContain(
      'shop.example.com',
    )
  })

  it.each([
    ['an IP address', '192.0.2.1'],
    ['an IPv6 address', '2001:db8::1'],
    ['localhost', 'localhost'],
    ['a name under localhost', 'mail.localhost'],
    ['a public suffix', 'co.uk'],
    ['a single label', 'intranet'],
    ['a name over 253 characters', `${`${'a'.repeat(60)}.`.repeat(5)}com`],
    ['a label over 63 characters', `${'a'.repeat(64)}.com`],
    ['an empty name', ''],
    ['an underscore', 'bad_name.com'],
  ])('refuses %s: 400 naming name', async (_, name) => {
    const response = await add({ name })
    expect(response.status).toBe(400)
    expect(await firstIssue(response)).toMatchObject({ code: 'validation_failed', path: 'name' })
  })

  it('refuses a missing name, a number and an unknown field: 400 naming the field', async () => {
    expect(await firstIssue(await add({}))).toMatchObject({ code: 'validation_failed', path: 'name' })
    expect(await firstIssue(await add({ name: 42 }))).toMatchObject({ path: 'name' })
    expect(await firstIssue(await add({ name: 'x.com', dkim: 'mine' }))).toMatchObject({ path: 'dkim' })
    const notJson = await postDomain(
      jsonRequest('/api/v1/domains', {
        token: acme.apiKey,
        rawBody: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
      deps,
    )
    expect(notJson.status).toBe(400)
    expect((await readJson<ErrorBody>(notJson)).error.code).toBe('invalid_json')
  })

  it('refuses the same domain twice for one tenant: 409 naming name', async () => {
    await added('twice.example.com')
    const again = await add({ name: 'TWICE.example.com' })
    expect(again.status).toBe(409)
    expect(await firstIssue(again)).toMatchObject({ code: 'conflict', path: 'name' })
  })

  it('needs an API key', async () => {
    expect((await add({ name: 'x.example.com' }, 'fl_not_a_key')).status).toBe(401)
  })
})

describe('verifying a domain', () => {
  it('verifies once the listed records are published, and says what a wrong DKIM record holds', async () => {
    const domain = await added('verify.example.com')
    const before = await verified(domain.id)
    expect(before.status).toBe('pending')
    expect(recordOf(before, 'dkim')).toMatchObject({
      status: 'pending',
      reason: expect.stringContaining('no TXT'),
    })

    const dkim = recordOf(domain, 'dkim')
    dns.publish({
      type: 'TXT',
      name: dkim.name,
      value: 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong',
    })
    const wrong = await verified(domain.id)
    expect(wrong.status).toBe('pending')
    expect(recordOf(wrong, 'dkim')).toMatchObject({
      status: 'failed',
      found: expect.stringContaining('AQEAwrong'),
      reason: expect.stringContaining('different DKIM key'),
    })

    dns.remove(dkim.name)
    publishDomainRecords(dns, domain)
    const response = await verify(domain.id)
    await expectNoPrivateKey(response, domain.id)
    const after = await readJson<DomainResponse>(response)
    expect(after).toMatchObject({ status: 'verified', failureReason: null })
    expect(after.verifiedAt).not.toBeNull()
    expect(after.dkim).toMatchObject({
      phase: 'active',
      signingSelector: dkim.selector,
      pendingSelector: null,
    })
    for (const record of after.records) expect(record, record.purpose).toMatchObject({ status: 'verified' })
    expect((await readJson<DomainResponse>(await get(domain.id))).status).toBe('verified')
  })

  it('leaves records pending with "lookup timed out" when the DNS server never answers', async () => {
    const silent: Socket = createSocket('udp4')
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve))
    try {
      const mute = harness.apiDeps({ dnsServers: [`127.0.0.1:${silent.address().port}`], dnsTimeoutMs: 200 })
      const domain = await added('timeout.example.com')
      const response = await verify(domain.id, acme.apiKey, mute)
      expect(response.status).toBe(200)
      const after = await readJson<DomainResponse>(response)
      expect(after.status).toBe('pending')
      for (const record of after.records) {
        expect(record, record.purpose).toMatchObject({
          status: 'pending',
          reason: expect.stringContaining('timed out'),
        })
      }
    } finally {
      silent.close()
    }
  })

  it('keeps a verified domain verified after one failed DKIM check, fails it after the second, and verifies it again', async () => {
    const domain = await added('vanish.example.com')
    publishDomainRecords(dns, domain)
    expect((await verified(domain.id)).status).toBe('verified')
    const dkim = recordOf(domain, 'dkim')
    dns.remove(dkim.name)

    const once = await verified(domain.id)
    expect(once.status).toBe('verified')
    expect(once.dkim.signingSelector).toBe(dkim.selector)
    expect(recordOf(once, 'dkim').status).toBe('pending')

    const twice = await verified(domain.id)
    expect(twice.status).toBe('failed')
    expect(twice.dkim).toMatchObject({ phase: 'held', signingSelector: null })
    expect(twice.failureReason).toContain(dkim.name)
    expect(twice.failureReason).toMatch(/2 checks in a row.*held/)

    const [held] = await harness.database.sql<{ id: string }[]>`
      insert into messages (tenant_id, lane, status, to_address, sending_domain_id)
      values (${acme.tenantId}, 'default', 'held', 'held@example.net', ${domain.id}) returning id`
    dns.publish({ type: 'TXT', name: dkim.name, value: dkim.value })
    const back = await verified(domain.id)
    expect(back).toMatchObject({ status: 'verified', failureReason: null })
    const [message] = await harness.database.sql<{ status: string }[]>`
      select status from messages where id = ${held?.id ?? ''}`
    expect(message?.status).toBe('queued')
  })

  it('fails a verified domain whose return-path CNAME is gone in two checks in a row', async () => {
    const domain = await added('no-bounce.example.com')
    publishDomainRecords(dns, domain)
    expect((await verified(domain.id)).status).toBe('verified')
    dns.remove(recordOf(domain, 'return-path').name)
    expect((await verified(domain.id)).status).toBe('verified')
    const twice = await verified(domain.id)
    expect(twice.status).toBe('failed')
    expect(twice.failureReason).toContain('fl-bounces.no-bounce.example.com')
  })
})

describe('rotating the DKIM key', () => {
  it('refuses before the first record verified: 409 with the reason', async () => {
    const domain = await added('early-rotate.example.com')
    const response = await rotate(domain.id)
    expect(response.status).toBe(409)
    expect((await readJson<ErrorBody>(response)).error.message).toMatch(/first DKIM record is not verified/)
  })

  it('lists the new selector, keeps the old key signing until its record verifies, then lists the old one as removable a week later', async () => {
    const domain = await added('rotate.example.com')
    publishDomainRecords(dns, domain)
    expect((await verified(domain.id)).status).toBe('verified')
    const old = recordOf(domain, 'dkim')

    const response = await rotate(domain.id)
    expect(response.status).toBe(200)
    await expectNoPrivateKey(response, domain.id)
    const rotating = await readJson<DomainResponse>(response)
    expect(rotating.dkim.phase).toBe('rotating')
    const fresh = rotating.dkim.pendingSelector as string
    expect(fresh).toMatch(/^fl\d{6}[a-z2-7]{4}$/)
    expect(fresh).not.toBe(old.selector)
    expect(rotating.dkim.signingSelector).toBe(old.selector)
    expect(recordOf(rotating, 'dkim', fresh)).toMatchObject({ status: 'pending', required: true })
    expect(recordOf(rotating, 'dkim', old.selector)).toMatchObject({ status: 'verified', required: true })

    const again = await rotate(domain.id)
    expect(again.status).toBe(409)
    expect((await readJson<ErrorBody>(again)).error.message).toContain(fresh)

    const waiting = await verified(domain.id)
    expect(waiting.dkim).toMatchObject({ phase: 'rotating', signingSelector: old.selector })

    publishDomainRecords(dns, { records: [recordOf(rotating, 'dkim', fresh)] })
    const switched = await verified(domain.id)
    expect(switched.status).toBe('verified')
    expect(switched.dkim).toMatchObject({ phase: 'active', signingSelector: fresh, pendingSelector: null })
    const retired = recordOf(switched, 'dkim', old.selector)
    expect(retired.required).toBe(false)
    const removableInMs = Date.parse(retired.removableAfter ?? '') - Date.now()
    expect(removableInMs).toBeGreaterThan(7 * 24 * 3600_000 - 60_000)
    expect(removableInMs).toBeLessThanOrEqual(7 * 24 * 3600_000)
  })
})

describe('a domain another tenant already has', () => {
  it('needs its own ownership record before it can verify; the first tenant keeps its domain', async () => {
    const first = await added('shared.example.com')
    publishDomainRecords(dns, first)
    expect((await verified(first.id)).status).toBe('verified')

    const second = await added('shared.example.com', globex.apiKey)
    const ownership = recordOf(second, 'ownership')
    expect(ownership).toMatchObject({
      type: 'TXT',
      name: '_fairlane.shared.example.com',
      required: true,
      status: 'pending',
    })
    expect(ownership.value).toMatch(/^fairlane-verification=[0-9a-f]{32}$/)
    publishDomainRecords(dns, second, { purposes: ['dkim', 'return-path'] })
    const without = await verified(second.id, globex.apiKey)
    expect(without.status).toBe('pending')
    expect(recordOf(without, 'dkim').status).toBe('verified')
    expect(recordOf(without, 'ownership').status).toBe('pending')

    publishDomainRecords(dns, second, { purposes: ['ownership'] })
    expect((await verified(second.id, globex.apiKey)).status).toBe('verified')
    expect((await verified(first.id)).status).toBe('verified')
  })
})

describe('tenants', () => {
  it("answer 404 for another tenant's domain on get, verify, rotate and delete, changing nothing", async () => {
    const domain = await added('private.example.com')
    for (const response of [
      await get(domain.id, globex.apiKey),
      await verify(domain.id, globex.apiKey),
      await rotate(domain.id, globex.apiKey),
      await remove(domain.id, globex.apiKey),
      await get('not-a-uuid'),
    ]) {
      expect(response.status).toBe(404)
      expect((await readJson<ErrorBody>(response)).error.code).toBe('not_found')
    }
    const list = await getDomains(jsonRequest('/api/v1/domains', { token: globex.apiKey }), deps)
    expect((await readJson<{ items: DomainResponse[] }>(list)).items.map((item) => item.id)).not.toContain(
      domain.id,
    )
    const still = await readJson<DomainResponse>(await get(domain.id))
    expect(still).toMatchObject({ status: 'pending', lastCheckedAt: null })
  })
})

describe('deleting a domain', () => {
  it('refuses while mail from it is open, saying how many; deletes it afterwards', async () => {
    const domain = await added('delete.example.com')
    await harness.database.sql`
      insert into messages (tenant_id, lane, status, to_address, sending_domain_id)
      values (${acme.tenantId}, 'default', 'queued', 'a@example.net', ${domain.id}),
             (${acme.tenantId}, 'bulk', 'pending', 'b@example.net', ${domain.id}),
             (${acme.tenantId}, 'bulk', 'held', 'c@example.net', ${domain.id}),
             (${acme.tenantId}, 'default', 'sent', 'd@example.net', ${domain.id})`
    const refused = await remove(domain.id)
    expect(refused.status).toBe(409)
    const { error } = await readJson<ErrorBody>(refused)
    expect(error).toMatchObject({ code: 'conflict', message: expect.stringContaining('3 open messages') })
    await harness.database.sql`
      update messages set status = 'cancelled' where sending_domain_id = ${domain.id} and status <> 'sent'`
    const deleted = await remove(domain.id)
    expect(deleted.status).toBe(200)
    expect((await readJson<DomainResponse>(deleted)).name).toBe('delete.example.com')
    expect((await get(domain.id)).status).toBe(404)
  })
})

describe('a tenant’s domains are bounded (issue 27, M5)', () => {
  it('refuses a domain beyond MAX_DOMAINS_PER_TENANT with 422, before making a key; deleting one makes room', async () => {
    const tenant = await seedTenant(harness, 'Domain cap')
    const small = harness.apiDeps({
      dnsServers: [dns.address],
      tenantLimits: { ...deps.tenantLimits, maxDomains: 2 },
    })
    const first = await add({ name: 'one.cap.example.com' }, tenant.apiKey, small)
    expect(first.status).toBe(201)
    expect((await add({ name: 'two.cap.example.com' }, tenant.apiKey, small)).status).toBe(201)
    const refused = await add({ name: 'three.cap.example.com' }, tenant.apiKey, small)
    expect(refused.status).toBe(422)
    const { error } = await readJson<ErrorBody>(refused)
    expect(error).toMatchObject({ code: 'unprocessable' })
    expect(error.message).toMatch(/already has 2 sending domains, the most allowed \(2\)/)
    const [held] = await harness.database.sql`
      select count(*)::int as domains,
        (select count(*)::int from dkim_keys where tenant_id = ${tenant.tenantId}) as keys
      from sending_domains where tenant_id = ${tenant.tenantId}`
    expect(held).toEqual({ domains: 2, keys: 2 })
    const { id } = await readJson<DomainResponse>(first)
    const removed = await deleteDomainById(
      jsonRequest(`/api/v1/domains/${id}`, { token: tenant.apiKey, method: 'DELETE' }),
      id,
      small,
    )
    expect(removed.status).toBe(200)
    expect((await add({ name: 'three.cap.example.com' }, tenant.apiKey, small)).status).toBe(201)
  })
})
