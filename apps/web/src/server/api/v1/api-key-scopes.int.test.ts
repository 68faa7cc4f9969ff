import { randomUUID } from 'node:crypto'
import { updateDefaultSender } from '@fairlane/db/queries/senders'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_ROUTES, type RouteDeps } from '../../routes'
import { routeDeps } from '../../test-support/api-calls'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedApiKey,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { insertSendingDomain } from '../../test-support/sending-domains'

/**
 * Scoped API keys, through the route table as the web entry calls it: a `sending` key may send a
 * message and read its status, and every other `/api/v1` route refuses it with a 403 naming the
 * scope. The walk takes the routes from `API_ROUTES` itself, so a route added later without a scope
 * of its own is walked (and refused) too.
 */
const env = setupTestEnvironment('web-api-key-scopes')

let harness: WebHarness
let deps: RouteDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
let sendingKey: string

/** Routes anyone may call without a key. */
const PUBLIC_ROUTES = new Set(['GET /api/v1/openapi.json'])
/** The routes a sending key may call. */
const SENDING_ROUTES = new Set([
  'POST /api/v1/messages',
  'GET /api/v1/messages/:id',
  'POST /api/v1/messages/batch',
  'DELETE /api/v1/messages/:id',
])

const v1Routes = Object.values(API_ROUTES).filter(
  (route) => route.path.startsWith('/api/v1/') && !PUBLIC_ROUTES.has(`${route.method} ${route.path}`),
)

/** The route's path with a value for each parameter (an email for `:email`, else a fresh uuid). */
function concrete(path: string): { path: string; params: Record<string, string> } {
  const params: Record<string, string> = {}
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    params[name] = name === 'email' ? 'someone@example.test' : randomUUID()
    return encodeURIComponent(params[name] as string)
  })
  return { path: filled, params }
}

async function call(route: (typeof v1Routes)[number], key: string, body: unknown = {}): Promise<Response> {
  const { path, params } = concrete(route.path)
  const request = jsonRequest(path, {
    method: route.method,
    token: key,
    body: route.method === 'GET' || route.method === 'DELETE' ? undefined : body,
  })
  return route.handle(request, params as never, deps)
}

beforeAll(async () => {
  harness = createWebHarness(env)
  // The default limits (300 a key, 800 a tenant per 10 s) hold this file's hundred calls.
  deps = routeDeps(harness, harness.apiDeps())
  tenant = await seedTenant(harness, 'Scoped')
  sendingKey = (await seedApiKey(harness, { tenantId: tenant.tenantId, scope: 'sending' })).apiKey
  const { sql } = harness.database
  await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'acme.test', status: 'verified' })
  await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'news.acme.test', status: 'verified' })
})

afterAll(async () => {
  await harness?.close()
})

describe('a sending key on every /api/v1 route', () => {
  it('walks every route of the table that needs a key', () => {
    expect(v1Routes.length).toBeGreaterThan(40)
    const declared = v1Routes.filter((route) => route.scope === 'sending').map((r) => `${r.method} ${r.path}`)
    expect(new Set(declared)).toEqual(SENDING_ROUTES)
  })

  for (const route of v1Routes) {
    const name = `${route.method} ${route.path}`
    if (SENDING_ROUTES.has(name)) continue
    it(`${name} → 403 naming the scope; a full key is not refused for its scope`, async () => {
      const refused = await call(route, sendingKey)
      expect(refused.status).toBe(403)
      const body = await readJson<{ error: { code: string; message: string } }>(refused)
      expect(body.error.code).toBe('forbidden')
      expect(body.error.message).toMatch(/"sending" scope/)
      expect(body.error.message).toMatch(/needs a "full" key/)

      const full = await call(route, tenant.apiKey)
      expect(full.status).not.toBe(403)
    })
  }

  it('POST /api/v1/contacts with a sending key → 403 naming the scope, nothing imported', async () => {
    const route = API_ROUTES.postContacts
    const refused = await call(route, sendingKey, { contacts: [{ email: 'a@example.test' }] })
    expect(refused.status).toBe(403)
    expect((await readJson<{ error: { message: string } }>(refused)).error.message).toContain(
      '"sending" scope',
    )
    const [row] = await harness.database.sql<{ n: number }[]>`
      select count(*)::int as n from contacts where tenant_id = ${tenant.tenantId}`
    expect(row?.n).toBe(0)
  })

  it('a sending key sends a message and reads its status', async () => {
    const sent = await call(API_ROUTES.postMessage, sendingKey, {
      to: 'reader@example.test',
      from: 'app@acme.test',
      subject: 'Hello',
      text: 'Hi',
    })
    expect(sent.status).toBe(202)
    const { id } = await readJson<{ id: string }>(sent)
    const read = await API_ROUTES.getMessage.handle(
      jsonRequest(`/api/v1/messages/${id}`, { token: sendingKey }),
      { id },
      deps,
    )
    expect(read.status).toBe(200)
    expect(await readJson(read)).toMatchObject({ id, status: 'queued' })
  })
})

describe('a key restricted to one domain', () => {
  const send = (key: string, from?: string) =>
    call(API_ROUTES.postMessage, key, {
      to: 'reader@example.test',
      ...(from ? { from } : {}),
      subject: 'Hello',
      text: 'Hi',
    })

  it('sends only with a From on its domain, explicit or the default; else 403 naming the domain', async () => {
    const owner = await seedTenant(harness, 'Restricted')
    const { sql } = harness.database
    await insertSendingDomain(sql, { tenantId: owner.tenantId, name: 'shop.test', status: 'verified' })
    await insertSendingDomain(sql, { tenantId: owner.tenantId, name: 'blog.test', status: 'verified' })
    const { apiKey } = await seedApiKey(harness, {
      tenantId: owner.tenantId,
      scope: 'sending',
      domain: 'shop.test',
    })

    expect((await send(apiKey, 'Shop <orders@shop.test>')).status).toBe(202)

    for (const from of ['news@blog.test', undefined]) {
      const refused = await send(apiKey, from)
      expect(refused.status).toBe(403)
      const { error } = await readJson<{ error: { code: string; message: string } }>(refused)
      expect(error.code).toBe('forbidden')
      expect(error.message).toContain('may only send from the domain shop.test')
    }
    // The same request with an unrestricted key of the tenant is accepted.
    expect((await send(owner.apiKey, 'news@blog.test')).status).toBe(202)

    // The tenant's default From on the key's domain applies when the request names none.
    await updateDefaultSender(harness.database.db, {
      tenantId: owner.tenantId,
      from: 'hello@shop.test',
      replyTo: null,
    })
    const restrictedAgain = await seedApiKey(harness, {
      tenantId: owner.tenantId,
      scope: 'full',
      domain: 'shop.test',
    })
    expect((await send(restrictedAgain.apiKey)).status).toBe(202)
    const [stored] = await sql<{ from_address: string }[]>`
      select from_address from messages where tenant_id = ${owner.tenantId} order by created_at desc limit 1`
    expect(stored?.from_address).toBe('hello@shop.test')
  })
})

describe('a key restricted to one domain, beyond POST /api/v1/messages', () => {
  async function restrictedTenant(name: string) {
    const owner = await seedTenant(harness, name)
    const { sql } = harness.database
    await insertSendingDomain(sql, {
      tenantId: owner.tenantId,
      name: `shop.${name}.test`,
      status: 'verified',
    })
    await insertSendingDomain(sql, {
      tenantId: owner.tenantId,
      name: `blog.${name}.test`,
      status: 'verified',
    })
    const { apiKey } = await seedApiKey(harness, {
      tenantId: owner.tenantId,
      scope: 'full',
      domain: `shop.${name}.test`,
    })
    return { owner, apiKey, shop: `shop.${name}.test`, blog: `blog.${name}.test` }
  }

  async function expectDomainRefusal(response: Response, domain: string, subject: string) {
    expect(response.status).toBe(403)
    const { error } = await readJson<{ error: { code: string; message: string } }>(response)
    expect(error.code).toBe('forbidden')
    expect(error.message).toContain(`may only send from the domain ${domain}`)
    expect(error.message).toContain(`this ${subject}`)
  }

  it('POST /api/v1/campaigns: only a From on the key domain (its own or the default); else 403, nothing saved', async () => {
    const { owner, apiKey, shop, blog } = await restrictedTenant('camp')
    const { sql } = harness.database
    const campaign = (from?: string) => ({
      name: 'Spring',
      subject: 'Hello',
      html: '<p>Hi</p>',
      sendAt: new Date(Date.now() + 86_400_000).toISOString(),
      ...(from ? { from } : {}),
    })

    for (const from of [`news@${blog}`, undefined]) {
      await expectDomainRefusal(await call(API_ROUTES.postCampaign, apiKey, campaign(from)), shop, 'campaign')
    }
    const [none] = await sql<{ n: number }[]>`
      select count(*)::int as n from campaigns where tenant_id = ${owner.tenantId}`
    expect(none?.n).toBe(0)

    expect((await call(API_ROUTES.postCampaign, apiKey, campaign(`news@${shop}`))).status).toBe(201)
    // The tenant's own unrestricted key is not held to the domain.
    expect((await call(API_ROUTES.postCampaign, owner.apiKey, campaign(`news@${blog}`))).status).toBe(201)

    // Without a From the campaign goes from the tenant's default: on the key's domain, that is allowed.
    await updateDefaultSender(harness.database.db, {
      tenantId: owner.tenantId,
      from: `hi@${shop}`,
      replyTo: null,
    })
    const fresh = await seedApiKey(harness, { tenantId: owner.tenantId, scope: 'full', domain: shop })
    expect((await call(API_ROUTES.postCampaign, fresh.apiKey, campaign())).status).toBe(201)
  })

  it('PUT /api/v1/sender: only a From on the key domain, never cleared; else 403, the default unchanged', async () => {
    const { owner, apiKey, shop, blog } = await restrictedTenant('sender')
    const { sql } = harness.database
    const stored = async () => {
      const [row] = await sql<{ default_from: string | null }[]>`
        select default_from from tenants where id = ${owner.tenantId}`
      return row?.default_from ?? null
    }

    await expectDomainRefusal(
      await call(API_ROUTES.putDefaultSender, apiKey, { from: `news@${blog}`, replyTo: null }),
      shop,
      'default sender',
    )
    expect(await stored()).toBeNull()

    const set = await call(API_ROUTES.putDefaultSender, apiKey, { from: `hi@${shop}`, replyTo: null })
    expect(set.status).toBe(200)
    expect(await stored()).toBe(`hi@${shop}`)

    await expectDomainRefusal(
      await call(API_ROUTES.putDefaultSender, apiKey, { from: null, replyTo: null }),
      shop,
      'default sender',
    )
    expect(await stored()).toBe(`hi@${shop}`)

    const other = await call(API_ROUTES.putDefaultSender, owner.apiKey, {
      from: `news@${blog}`,
      replyTo: null,
    })
    expect(other.status).toBe(200)
    expect(await stored()).toBe(`news@${blog}`)
  })
})
