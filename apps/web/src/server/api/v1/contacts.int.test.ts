import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { postContacts } from './post-contacts'

const env = setupTestEnvironment('web-contacts-api')

let harness: WebHarness
let acme: { tenantId: string; apiKey: string }
let globex: { tenantId: string; apiKey: string }

beforeAll(async () => {
  harness = createWebHarness(env)
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})

afterAll(async () => {
  await harness?.close()
})

const post = (body: unknown, token = acme.apiKey) =>
  postContacts(jsonRequest('/api/v1/contacts', { token, body }), harness.apiDeps())

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] }
}

interface StoredRow {
  id: string
  name: string | null
  attributes: Record<string, unknown>
  unsubscribedMs: number | null
}

// Raw SQL: the web app's drizzle-orm is another instance than @fairlane/db's, so its operators do not mix.
async function storedContact(tenantId: string, email: string): Promise<StoredRow | undefined> {
  const [row] = await harness.database.sql<StoredRow[]>`
    select id, name, attributes, (extract(epoch from unsubscribed_at) * 1000)::float8 as "unsubscribedMs"
    from contacts where tenant_id = ${tenantId} and email = ${email}`
  return row
}

describe('POST /api/v1/contacts', () => {
  it('creates, then updates by email, counting each', async () => {
    const first = await post({
      contacts: [
        { email: 'Ann@Example.test', name: 'Ann', attributes: { plan: 'pro', seats: 3 } },
        { email: 'bo@example.test' },
      ],
    })
    expect(first.status).toBe(200)
    expect(await readJson(first)).toEqual({ created: 2, updated: 0 })

    const second = await post({
      contacts: [
        { email: 'ann@example.test', attributes: { beta: true } },
        { email: 'cy@example.test', name: 'Cy' },
      ],
    })
    expect(await readJson(second)).toEqual({ created: 1, updated: 1 })
    // Name kept (not given), attributes merged.
    expect(await storedContact(acme.tenantId, 'ann@example.test')).toMatchObject({
      name: 'Ann',
      attributes: { plan: 'pro', seats: 3, beta: true },
    })
  })

  it('answers 400 naming contacts[i].field and writes nothing', async () => {
    const response = await post({
      contacts: [
        { email: 'new-one@example.test' },
        { email: 'nope' },
        { email: 'x@example.test', attributes: { 'a b': 1 } },
      ],
    })
    expect(response.status).toBe(400)
    const { error } = await readJson<ErrorBody>(response)
    expect(error.code).toBe('validation_failed')
    expect(error.details?.map((issue) => issue.path)).toEqual([
      'contacts[1].email',
      'contacts[2].attributes.a b',
    ])
    expect(error.message).toContain('contacts[1].email')
    expect(await storedContact(acme.tenantId, 'new-one@example.test')).toBeUndefined()
  })

  it('refuses a repeated email in one call, naming both entries', async () => {
    const response = await post({ contacts: [{ email: 'd@example.test' }, { email: 'D@example.test' }] })
    expect(response.status).toBe(400)
    const { error } = await readJson<ErrorBody>(response)
    expect(error.details).toEqual([{ path: 'contacts[1].email', message: 'repeats contacts[0].email' }])
  })

  it('takes 10,000 contacts in one call and refuses 10,001 with 413 naming the limit', async () => {
    const many = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        email: `${tag}-${i}@bulk.test`,
        name: `User ${i}`,
        attributes: { i },
      }))
    const ok = await post({ contacts: many(10_000, 'ok') })
    expect(ok.status).toBe(200)
    expect(await readJson(ok)).toEqual({ created: 10_000, updated: 0 })

    const tooMany = await post({ contacts: many(10_001, 'over') })
    expect(tooMany.status).toBe(413)
    const { error } = await readJson<ErrorBody>(tooMany)
    expect(error.code).toBe('payload_too_large')
    expect(error.message).toContain('10000')
    expect(await storedContact(acme.tenantId, 'over-0@bulk.test')).toBeUndefined()
  })

  it('answers 400 for a body that is not an object with contacts, 401 without a key, 415 for form data', async () => {
    expect((await post([])).status).toBe(400)
    expect((await post({ contacts: 'x' })).status).toBe(400)
    expect((await post({ contacts: [] }, 'fl_wrong')).status).toBe(401)
    const form = postContacts(
      jsonRequest('/api/v1/contacts', {
        token: acme.apiKey,
        rawBody: 'email=a@b.test',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      harness.apiDeps(),
    )
    expect((await form).status).toBe(415)
  })

  it('keeps tenants apart: the same email is two contacts, and one tenant never updates the other', async () => {
    const response = await post(
      { contacts: [{ email: 'ann@example.test', name: 'Globex Ann' }] },
      globex.apiKey,
    )
    expect(await readJson(response)).toEqual({ created: 1, updated: 0 })
    expect((await storedContact(acme.tenantId, 'ann@example.test'))?.name).toBe('Ann')
    expect((await storedContact(globex.tenantId, 'ann@example.test'))?.name).toBe('Globex Ann')
  })

  it('does not resubscribe an unsubscribed contact', async () => {
    const before = await storedContact(acme.tenantId, 'bo@example.test')
    const when = new Date('2026-01-01T00:00:00Z')
    await harness.database
      .sql`update contacts set unsubscribed_at = ${when.toISOString()}::timestamptz where id = ${before?.id ?? ''}`
    await post({ contacts: [{ email: 'bo@example.test', name: 'Bo' }] })
    expect((await storedContact(acme.tenantId, 'bo@example.test'))?.unsubscribedMs).toBe(when.getTime())
  })
})
