import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRouter } from '../../fast-path/router'
import { API_ROUTES, type RouteDeps } from '../../routes'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from '../catalog'
import { OPENAPI_PATH } from './openapi/document'

/**
 * The document against the real handlers: every example request it gives is sent through the route
 * table to the handler on real PostgreSQL and Redis, must be accepted with the documented status, and
 * the answer must fit the documented response schema; so must the error answers.
 */
const env = setupTestEnvironment('web-openapi')

interface MediaType {
  schema: unknown
  examples?: Record<string, { value: unknown }>
}
interface Operation {
  operationId: string
  parameters?: { in: string; name: string }[]
  requestBody?: { content: Record<string, MediaType> }
  responses: Record<string, { content?: Record<string, MediaType> }>
}

let harness: WebHarness
let deps: RouteDeps
let apiKey: string
let checked: CheckedDocument
const router = createRouter(Object.values(API_ROUTES))
const document = buildOpenApiDocument()

beforeAll(async () => {
  harness = createWebHarness(env)
  apiKey = (await seedTenant(harness, 'Documented')).apiKey
  deps = {
    api: harness.apiDeps(),
    admin: harness.adminDeps(),
    database: harness.database,
    redis: harness.redis,
    auth: harness.auth,
    logger: harness.logger,
    tracking: harness.trackingDeps(),
  }
  checked = await checkOpenApiDocument(document)
  expect(checked.valid).toBe(true)
})

afterAll(async () => {
  await harness?.close()
})

/** Sends a request the way the web entry does: looked up in the route table, answered by its handler. */
async function call(method: string, path: string, options: { body?: unknown; token?: string | null } = {}) {
  const lookup = router(method, path)
  if (lookup?.kind !== 'route') throw new Error(`${method} ${path} is not in the route table`)
  const request = jsonRequest(path, { method, token: options.token ?? null, body: options.body })
  return lookup.route.handle(request, lookup.params, deps)
}

function operation(path: string, method: string): Operation {
  const paths = checked.resolved.paths as Record<string, Record<string, Operation>>
  const found = paths[path]?.[method]
  if (!found) throw new Error(`the document has no ${method} ${path}`)
  return found
}

/** The answer's status is one the operation documents, and its JSON body fits that status's schema. */
async function expectDocumented(op: Operation, response: Response): Promise<Record<string, unknown>> {
  const documented = op.responses[String(response.status)]
  const body = await readJson(response)
  expect(
    documented,
    `${op.operationId} answered an undocumented ${response.status}: ${JSON.stringify(body)}`,
  ).toBeDefined()
  const schema = documented?.content?.['application/json']?.schema
  expect(schema, `${op.operationId} ${response.status} has no JSON schema`).toBeDefined()
  const fit = checked.fits(schema, body)
  expect(fit.ok, `${op.operationId} ${response.status} ${JSON.stringify(body)}: ${fit.errors}`).toBe(true)
  return body
}

function examplesOf(op: Operation): [string, unknown][] {
  const examples = op.requestBody?.content['application/json']?.examples ?? {}
  return Object.entries(examples).map(([name, example]) => [name, example.value])
}

describe('the OpenAPI document against the real handlers', () => {
  it('is served by the route table without a key, cacheable, with a 304 for its ETag', async () => {
    const response = await call('GET', OPENAPI_PATH)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
    const etag = response.headers.get('etag')
    expect(etag).toMatch(/^".+"$/)
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(document)))
    const lookup = router('GET', OPENAPI_PATH)
    if (lookup?.kind !== 'route') throw new Error('no route')
    const again = await lookup.route.handle(
      new Request(`http://127.0.0.1:3000${OPENAPI_PATH}`, { headers: { 'if-none-match': etag ?? '' } }),
      lookup.params,
      deps,
    )
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('accepts every example message with 202 and answers GET as documented', async () => {
    const post = operation('/api/v1/messages', 'post')
    const get = operation('/api/v1/messages/{id}', 'get')
    const examples = examplesOf(post)
    expect(examples.map(([name]) => name)).toEqual(['otp', 'passwordReset', 'custom', 'attachments'])
    for (const [name, body] of examples) {
      const response = await call('POST', '/api/v1/messages', { token: apiKey, body })
      expect(response.status, name).toBe(202)
      const accepted = await expectDocumented(post, response)
      const read = await call('GET', `/api/v1/messages/${accepted.id}`, { token: apiKey })
      expect(read.status).toBe(200)
      expect(await expectDocumented(get, read)).toMatchObject({ id: accepted.id, lane: accepted.lane })
    }
  })

  it('schedules every example campaign with 201, then reads and cancels it as documented', async () => {
    const post = operation('/api/v1/campaigns', 'post')
    const get = operation('/api/v1/campaigns/{id}', 'get')
    const cancel = operation('/api/v1/campaigns/{id}/cancel', 'post')
    const examples = examplesOf(post)
    expect(examples.length).toBeGreaterThanOrEqual(2)
    for (const [name, body] of examples) {
      const response = await call('POST', '/api/v1/campaigns', { token: apiKey, body })
      expect(response.status, name).toBe(201)
      const scheduled = await expectDocumented(post, response)
      expect(scheduled.status).toBe('scheduled')
      const read = await call('GET', `/api/v1/campaigns/${scheduled.id}`, { token: apiKey })
      expect(read.status).toBe(200)
      await expectDocumented(get, read)
      const cancelled = await call('POST', `/api/v1/campaigns/${scheduled.id}/cancel`, { token: apiKey })
      expect(cancelled.status).toBe(200)
      expect(await expectDocumented(cancel, cancelled)).toMatchObject({ status: 'cancelled' })
    }
  })

  it('upserts the example contacts with 200 as documented', async () => {
    const post = operation('/api/v1/contacts', 'post')
    for (const [name, body] of examplesOf(post)) {
      const response = await call('POST', '/api/v1/contacts', { token: apiKey, body })
      expect(response.status, name).toBe(200)
      expect(await expectDocumented(post, response)).toEqual({ created: 2, updated: 0 })
    }
  })

  it('answers errors in the documented error shape: 400, 401, 404', async () => {
    const messages = operation('/api/v1/messages', 'post')
    const invalid = await call('POST', '/api/v1/messages', { token: apiKey, body: { to: 'x' } })
    expect(invalid.status).toBe(400)
    await expectDocumented(messages, invalid)
    const anonymous = await call('POST', '/api/v1/messages', { body: { to: 'a@b.test' } })
    expect(anonymous.status).toBe(401)
    await expectDocumented(messages, anonymous)
    const missing = await call('GET', '/api/v1/messages/00000000-0000-4000-8000-000000000000', {
      token: apiKey,
    })
    expect(missing.status).toBe(404)
    await expectDocumented(operation('/api/v1/messages/{id}', 'get'), missing)
    const contacts = await call('POST', '/api/v1/contacts', {
      token: apiKey,
      body: { contacts: [{ email: 'not-an-address' }] },
    })
    expect(contacts.status).toBe(400)
    expect(await expectDocumented(operation('/api/v1/contacts', 'post'), contacts)).toMatchObject({
      error: { details: [{ path: 'contacts[0].email' }] },
    })
  })
})
