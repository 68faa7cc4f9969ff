import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { deleteSuppression, getSuppressions, postSuppressions } from './suppressions'

const env = setupTestEnvironment('web-suppressions-api')

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

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] }
}
interface Page {
  items: { email: string; reason: string; scope: string; lanes: string[]; createdAt: string }[]
  nextCursor?: string
}

const add = (body: unknown, token = acme.apiKey) =>
  postSuppressions(jsonRequest('/api/v1/suppressions', { token, body }), harness.apiDeps())
const list = (query = '', token = acme.apiKey) =>
  getSuppressions(jsonRequest(`/api/v1/suppressions${query}`, { token }), harness.apiDeps())
const remove = (email: string, query = '', token = acme.apiKey) =>
  deleteSuppression(
    jsonRequest(`/api/v1/suppressions/${encodeURIComponent(email)}${query}`, { token, method: 'DELETE' }),
    email,
    harness.apiDeps(),
  )

describe('/api/v1/suppressions', () => {
  it('adds manual entries on every lane by default, or on marketing only when asked, and widens, never narrows', async () => {
    const added = await add({ emails: ['A@Example.test', 'a@example.test', 'b@example.test'] })
    expect(added.status).toBe(200)
    const { items } = await readJson<Page>(added)
    expect(items.map(({ email, reason, scope, lanes }) => ({ email, reason, scope, lanes }))).toEqual([
      { email: 'a@example.test', reason: 'manual', scope: 'all', lanes: ['critical', 'default', 'bulk'] },
      { email: 'b@example.test', reason: 'manual', scope: 'all', lanes: ['critical', 'default', 'bulk'] },
    ])
    // An entry already on every lane is not narrowed by a marketing one; a marketing entry is widened.
    const narrower = await readJson<Page>(
      await add({ emails: ['a@example.test', 'c@example.test'], scope: 'marketing' }),
    )
    expect(narrower.items.map(({ email, scope }) => ({ email, scope }))).toEqual([
      { email: 'a@example.test', scope: 'all' },
      { email: 'c@example.test', scope: 'marketing' },
    ])
    const wider = await readJson<Page>(await add({ emails: ['c@example.test'] }))
    expect(wider.items).toEqual([expect.objectContaining({ email: 'c@example.test', scope: 'all' })])
  })

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'emails'],
      [{ emails: [] }, 'emails'],
      [{ emails: ['not an address'] }, 'emails[0]'],
      [{ emails: ['x@example.test'], scope: 'transactional' }, 'scope'],
      [{ emails: ['x@example.test'], reason: 'hard-bounce' }, 'reason'],
      [{ emails: Array.from({ length: 1001 }, (_, i) => `u${i}@example.test`) }, 'emails'],
    ]
    for (const [body, path] of cases) {
      const response = await add(body)
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      const error = (await readJson<ErrorBody>(response)).error
      expect(error.details?.map((issue) => issue.path)).toContain(path)
    }
    for (const [query, path] of [
      ['?scope=everything', 'scope'],
      ['?reason=bored', 'reason'],
      ['?limit=0', 'limit'],
      ['?cursor=***', 'cursor'],
      ['?emial=a@example.test', 'emial'],
    ]) {
      const response = await list(query)
      expect(response.status, query).toBe(400)
      expect((await readJson<ErrorBody>(response)).error.details?.[0]?.path).toBe(path)
    }
  })

  it('lists by filter, in pages, and only the caller’s own entries', async () => {
    await add({ emails: ['d@example.test', 'e@example.test'], scope: 'marketing' })
    await add({ emails: ['z@example.test'] }, globex.apiKey)
    const marketing = await readJson<Page>(await list('?scope=marketing'))
    expect(marketing.items.map((item) => item.email)).toEqual(['d@example.test', 'e@example.test'])
    const first = await readJson<Page>(await list('?limit=2&email=&reason='))
    expect(first.items.map((item) => item.email)).toEqual(['a@example.test', 'b@example.test'])
    expect(first.nextCursor).toBeDefined()
    const rest = await readJson<Page>(await list(`?limit=10&cursor=${first.nextCursor}`))
    expect(rest.items.map((item) => item.email)).toEqual([
      'c@example.test',
      'd@example.test',
      'e@example.test',
    ])
    expect(rest.nextCursor).toBeUndefined()
    const theirs = await readJson<Page>(await list('', globex.apiKey))
    expect(theirs.items.map((item) => item.email)).toEqual(['z@example.test'])
  })

  it('removes an entry (204), only of the given scope when one is named, and 404s what is not listed', async () => {
    expect((await remove('d@example.test', '?scope=all')).status).toBe(404)
    expect((await remove('D@example.test', '?scope=marketing')).status).toBe(204)
    expect((await remove('d@example.test')).status).toBe(404)
    // Another tenant's entry is not found, and stays.
    expect((await remove('z@example.test')).status).toBe(404)
    expect((await readJson<Page>(await list('', globex.apiKey))).items).toHaveLength(1)
    expect((await remove('not-an-address')).status).toBe(400)
  })
})
