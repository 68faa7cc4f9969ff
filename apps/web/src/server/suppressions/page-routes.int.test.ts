import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, readJson, seedTenant, type WebHarness } from '../test-support/harness'
import { getSuppressionsPageExport, postSuppressionsPageImport } from './page-routes'

const env = setupTestEnvironment('web-suppressions-page-routes')

let harness: WebHarness
let tenantId: string
let otherTenantId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  tenantId = (await seedTenant(harness, 'Suppressor')).tenantId
  otherTenantId = (await seedTenant(harness, 'Bystander')).tenantId
})

afterAll(async () => {
  await harness?.close()
})

const deps = (tenant: string | null = tenantId) => ({
  db: harness.database.db,
  logger: harness.logger,
  tenantId: async () => tenant,
  now: () => new Date('2026-12-03T10:00:00Z'),
})

const upload = (csv: string, options: { tenant?: string | null; headers?: Record<string, string> } = {}) =>
  postSuppressionsPageImport(
    new Request('http://127.0.0.1:3000/suppressions/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv', host: '127.0.0.1:3000', ...options.headers },
      body: csv,
    }),
    deps(options.tenant),
  )

const download = (query = '', tenant: string | null = tenantId) =>
  getSuppressionsPageExport(new Request(`http://127.0.0.1:3000/suppressions/export${query}`), deps(tenant))

describe('the Suppressions page’s CSV routes', () => {
  it('imports for the signed-in tenant, with line numbers, as the API does', async () => {
    const response = await upload('email\r\nann@page.test\r\nbroken\r\nbob@page.test\r\n', {
      headers: { origin: 'http://127.0.0.1:3000' },
    })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toMatchObject({
      added: 2,
      rejected: [{ line: 3, email: 'broken', reason: 'invalid email "broken"' }],
    })
    const text = await (await download('?email=page.test')).text()
    expect(text.split('\r\n').map((line) => line.split(',')[0])).toEqual([
      'email',
      'ann@page.test',
      'bob@page.test',
      '',
    ])
    expect((await download('?email=page.test', otherTenantId)).status).toBe(200)
    expect(await (await download('?email=page.test', otherTenantId)).text()).toBe(
      'email,reason,scope,detail,created_at\r\n',
    )
  })

  it('refuses a cross-site upload, an ended session, and a form body', async () => {
    expect((await upload('x@page.test', { headers: { origin: 'https://evil.test' } })).status).toBe(403)
    expect((await upload('x@page.test', { tenant: null })).status).toBe(401)
    expect((await download('', null)).status).toBe(401)
    const form = await upload('email=x@page.test', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(415)
    expect((await download('?reason=bored')).status).toBe(400)
  })
})
