import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import {
  deleteSuppression,
  getSuppressions,
  getSuppressionsExport,
  postSuppressions,
  postSuppressionsImport,
} from './suppressions'

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
interface Entry {
  email: string
  reason: string
  scope: string
  lanes: string[]
  createdAt: string
  detail?: string
}
interface Page {
  items: Entry[]
  nextCursor?: string
}
interface ImportReport {
  rows: number
  added: number
  widened: number
  alreadySuppressed: number
  duplicates: number
  blank: number
  rejected: { line: number; email: string | null; reason: string }[]
  header: boolean
  ignoredColumns: string[]
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
const importCsv = (
  csv: string | Uint8Array<ArrayBuffer>,
  options: { query?: string; token?: string; contentType?: string | null } = {},
) => {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? acme.apiKey}` }
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'text/csv'
  return postSuppressionsImport(
    new Request(`http://127.0.0.1:3000/api/v1/suppressions/import${options.query ?? ''}`, {
      method: 'POST',
      headers,
      body: csv,
    }),
    harness.apiDeps(),
  )
}
const exportCsv = (query = '', token = acme.apiKey) =>
  getSuppressionsExport(jsonRequest(`/api/v1/suppressions/export${query}`, { token }), harness.apiDeps())

async function errorPaths(response: Response): Promise<string[]> {
  return ((await readJson<ErrorBody>(response)).error.details ?? []).map((issue) => issue.path)
}

describe('/api/v1/suppressions', () => {
  it('adds manual entries on every lane by default, or on marketing only when asked, and widens, never narrows', async () => {
    const added = await add({ emails: ['A@Example.test', 'a@example.test', 'b@example.test'] })
    expect(added.status).toBe(200)
    const { items } = await readJson<Page>(added)
    expect(items.map(({ email, reason, scope, lanes }) => ({ email, reason, scope, lanes }))).toEqual([
      { email: 'a@example.test', reason: 'manual', scope: 'all', lanes: ['critical', 'default', 'bulk'] },
      { email: 'b@example.test', reason: 'manual', scope: 'all', lanes: ['critical', 'default', 'bulk'] },
    ])
    expect(items[0]).not.toHaveProperty('detail')
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

  it('keeps the detail of a manual entry, and does not overwrite an existing entry’s', async () => {
    const { items } = await readJson<Page>(
      await add({ emails: ['f@example.test', 'a@example.test'], detail: '  Asked by phone  ' }),
    )
    expect(items.map(({ email, detail }) => ({ email, detail }))).toEqual([
      { email: 'f@example.test', detail: 'Asked by phone' },
      { email: 'a@example.test', detail: undefined },
    ])
    const page = await readJson<Page>(await list('?email=f@example.test'))
    expect(page.items).toEqual([
      expect.objectContaining({ email: 'f@example.test', detail: 'Asked by phone' }),
    ])
  })

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'emails'],
      [{ emails: [] }, 'emails'],
      [{ emails: ['not an address'] }, 'emails[0]'],
      [{ emails: ['x@example.test'], scope: 'transactional' }, 'scope'],
      [{ emails: ['x@example.test'], reason: 'hard-bounce' }, 'reason'],
      [{ emails: ['x@example.test'], detail: 'two\r\nlines' }, 'detail'],
      [{ emails: ['x@example.test'], detail: 'x'.repeat(1001) }, 'detail'],
      [{ emails: ['x@example.test'], detail: 42 }, 'detail'],
      [{ emails: Array.from({ length: 1001 }, (_, i) => `u${i}@example.test`) }, 'emails'],
    ]
    for (const [body, path] of cases) {
      const response = await add(body)
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(await errorPaths(response)).toContain(path)
    }
    for (const [query, path] of [
      ['?scope=everything', 'scope'],
      ['?reason=bored', 'reason'],
      ['?limit=0', 'limit'],
      ['?cursor=***', 'cursor'],
      ['?cursor=YQ%3D', 'cursor'], // decodes ("a") but is not spelt as this API spells cursors
      [`?cursor=${'Y'.repeat(401)}`, 'cursor'],
      [`?email=${'a'.repeat(255)}`, 'email'],
      ['?emial=a@example.test', 'emial'],
    ]) {
      const response = await list(query)
      expect(response.status, query).toBe(400)
      expect(await errorPaths(response), query).toEqual([path])
    }
    expect((await remove('x@example.test', '?scope=some')).status).toBe(400)
  })

  it('searches for a part of the address in any case, filters by reason, in pages, and only the caller’s own entries', async () => {
    await add({ emails: ['d@example.test', 'e@example.test'], scope: 'marketing' })
    await add({ emails: ['z@example.test', 'd@globex.test'] }, globex.apiKey)
    const marketing = await readJson<Page>(await list('?scope=marketing'))
    expect(marketing.items.map((item) => item.email)).toEqual(['d@example.test', 'e@example.test'])
    // A part of the address, any case; `%` and `_` are plain characters, not patterns.
    const found = await readJson<Page>(await list('?email=D%40EXAMPLE'))
    expect(found.items.map((item) => item.email)).toEqual(['d@example.test'])
    expect((await readJson<Page>(await list('?email=%25'))).items).toEqual([])
    const all = await readJson<Page>(await list('?email=example.TEST&reason=manual&scope=all'))
    expect(all.items.map((item) => item.email)).toEqual([
      'a@example.test',
      'b@example.test',
      'c@example.test',
      'f@example.test',
    ])
    expect((await readJson<Page>(await list('?reason=hard-bounce'))).items).toEqual([])
    // Stable keyset pages: a page starts right after the previous one's last address.
    const first = await readJson<Page>(await list('?limit=2&email=&reason='))
    expect(first.items.map((item) => item.email)).toEqual(['a@example.test', 'b@example.test'])
    expect(first.nextCursor).toBeDefined()
    await add({ emails: ['aa@example.test'] }) // before the cursor: not on the next page
    const rest = await readJson<Page>(await list(`?limit=10&cursor=${first.nextCursor}`))
    expect(rest.items.map((item) => item.email)).toEqual([
      'c@example.test',
      'd@example.test',
      'e@example.test',
      'f@example.test',
    ])
    expect(rest.nextCursor).toBeUndefined()
    const theirs = await readJson<Page>(await list('', globex.apiKey))
    expect(theirs.items.map((item) => item.email)).toEqual(['d@globex.test', 'z@example.test'])
    // Another tenant's address is not found by a search either.
    expect((await readJson<Page>(await list('?email=globex'))).items).toEqual([])
  })

  it('removes an entry, answering it with its reason and detail, and resets the address’s soft-bounce count', async () => {
    const { sql } = harness.database
    await sql`insert into suppressions (tenant_id, email, reason, scope, detail)
      values (${acme.tenantId}, 'gone@example.test', 'hard-bounce', 'all', '550 5.1.1 no such user')`
    for (const tenant of [acme, globex]) {
      await sql`insert into address_bounces (tenant_id, email, soft_count, window_start, last_soft_at)
        values (${tenant.tenantId}, 'gone@example.test', 2, now(), now())`
    }
    const response = await remove('Gone@Example.test')
    expect(response.status).toBe(200)
    const { items } = await readJson<Page>(response)
    expect(items).toEqual([
      expect.objectContaining({
        email: 'gone@example.test',
        reason: 'hard-bounce',
        scope: 'all',
        detail: '550 5.1.1 no such user',
      }),
    ])
    const counts = await sql<{ tenant_id: string }[]>`
      select tenant_id from address_bounces where email = 'gone@example.test'`
    // This tenant's count went with the entry; the other tenant's is its own.
    expect(counts.map((row) => row.tenant_id)).toEqual([globex.tenantId])
    expect((await remove('gone@example.test')).status).toBe(404)
  })

  it('removes only the given scope when one is named, and 404s what is not listed or is another tenant’s', async () => {
    expect((await remove('d@example.test', '?scope=all')).status).toBe(404)
    const lifted = await remove('D@example.test', '?scope=marketing')
    expect(lifted.status).toBe(200)
    expect((await readJson<Page>(lifted)).items[0]).toMatchObject({
      email: 'd@example.test',
      scope: 'marketing',
    })
    expect((await remove('d@example.test')).status).toBe(404)
    // Another tenant's entry is not found, and stays.
    const theirs = await remove('z@example.test')
    expect(theirs.status).toBe(404)
    expect((await readJson<ErrorBody>(theirs)).error.code).toBe('not_found')
    expect((await readJson<Page>(await list('', globex.apiKey))).items).toHaveLength(2)
    expect((await remove('not-an-address')).status).toBe(400)
  })
})

describe('POST /api/v1/suppressions/import', () => {
  it('imports the good rows and answers every other row with its line number', async () => {
    const csv = [
      'email,detail,reason',
      'one@import.test,From the old provider,hard-bounce',
      'not-an-address,,',
      '"TWO@import.test","multi-line cell,',
      'still detail? no: control chars",',
      '',
      'three@import.test,,',
      'one@import.test,again,',
      'a@example.test,,',
      'four@import.test,,,extra',
      'e@example.test,,',
      '',
    ].join('\r\n')
    const response = await importCsv(csv)
    expect(response.status).toBe(200)
    const report = await readJson<ImportReport>(response)
    expect(report).toEqual({
      rows: 8,
      added: 2,
      widened: 1, // e@example.test was a marketing-only entry
      alreadySuppressed: 1, // a@example.test
      duplicates: 1,
      blank: 1,
      rejected: [
        { line: 3, email: 'not-an-address', reason: 'invalid email "not-an-address"' },
        {
          line: 4,
          email: 'TWO@import.test',
          reason: 'detail must be one line of text, without control characters',
        },
        { line: 10, email: 'four@import.test', reason: expect.stringMatching(/^too many columns: 4/) },
      ],
      header: true,
      ignoredColumns: ['Not read (only email and detail are): reason'],
    })
    const page = await readJson<Page>(await list('?email=import.test'))
    expect(page.items.map(({ email, reason, scope, detail }) => ({ email, reason, scope, detail }))).toEqual([
      { email: 'one@import.test', reason: 'manual', scope: 'all', detail: 'From the old provider' },
      { email: 'three@import.test', reason: 'manual', scope: 'all', detail: undefined },
    ])
    expect((await readJson<Page>(await list('?email=e@example.test'))).items[0]?.scope).toBe('all')
    // The other tenant's list is untouched.
    expect((await readJson<Page>(await list('?email=import.test', globex.apiKey))).items).toEqual([])
  })

  it('reads a list without a header, semicolons, and a marketing scope', async () => {
    const plain = await readJson<ImportReport>(
      await importCsv('five@import.test\nsix@import.test\n', { query: '?scope=marketing' }),
    )
    expect(plain).toMatchObject({ header: false, rows: 2, added: 2, rejected: [] })
    const semicolons = await readJson<ImportReport>(
      await importCsv('E-Mail;Note\nseven@import.test;Per ticket 12\n', {
        contentType: 'text/plain; charset=utf-8',
      }),
    )
    expect(semicolons).toMatchObject({ header: true, added: 1, rejected: [] })
    const page = await readJson<Page>(await list('?email=import.test&scope=marketing'))
    expect(page.items.map((item) => item.email)).toEqual(['five@import.test', 'six@import.test'])
    expect((await readJson<Page>(await list('?email=seven'))).items[0]?.detail).toBe('Per ticket 12')
  })

  it('refuses a bad file as a whole with a 4xx naming what is wrong, and writes nothing', async () => {
    const before = (await readJson<Page>(await list('?limit=1000'))).items.length
    const header = await importCsv('address,name\nx@import.test,X\n')
    expect(header.status).toBe(400)
    expect(await errorPaths(header)).toEqual(['header'])
    const empty = await importCsv('email\n\n')
    expect(empty.status).toBe(400)
    expect(await errorPaths(empty)).toEqual(['body'])
    const latin1 = await importCsv(
      new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xe9, 0x40, 0x78, 0x2e, 0x74]),
    )
    expect(latin1.status).toBe(400)
    expect(await errorPaths(latin1)).toEqual(['body'])
    const scope = await importCsv('x@import.test\n', { query: '?scope=some' })
    expect(scope.status).toBe(400)
    expect(await errorPaths(scope)).toEqual(['scope'])
    expect((await importCsv('x@import.test\n', { contentType: 'application/json' })).status).toBe(415)
    expect((await importCsv(new TextEncoder().encode('x@import.test\n'), { contentType: null })).status).toBe(
      415,
    )
    expect((await importCsv('x@import.test\n', { contentType: 'text/csv; charset=latin1' })).status).toBe(415)
    const huge = await importCsv(`email\n${'x@import.test\n'.repeat(400_000)}`)
    expect(huge.status).toBe(413)
    // Within the byte limit but over the row limit: refused before any row is written.
    const long = await importCsv(`email\n${'many@rows.test\n'.repeat(100_001)}`)
    expect(long.status).toBe(413)
    expect((await readJson<ErrorBody>(long)).error.message).toMatch(/at most 100,000/)
    expect((await readJson<Page>(await list('?limit=1000'))).items).toHaveLength(before)
  })
})

describe('GET /api/v1/suppressions/export', () => {
  it('answers the filtered list as CSV that imports again, spreadsheet formulas defused', async () => {
    await add({ emails: ['-dash@export.test'], detail: '=HYPERLINK("http://evil.test")' })
    await add({ emails: ['plain@export.test'], detail: 'says "hello", twice' })
    await add({ emails: ['other@export.test'] }, globex.apiKey)
    const response = await exportCsv('?email=export.test')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="suppressions-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    const lines = (await response.text()).split('\r\n')
    expect(lines[0]).toBe('email,reason,scope,detail,created_at')
    expect(lines.slice(1, 3).map((line) => line.replace(/,[^,]*$/, ''))).toEqual([
      `"'-dash@export.test",manual,all,"'=HYPERLINK(""http://evil.test"")"`,
      'plain@export.test,manual,all,"says ""hello"", twice"',
    ])
    expect(lines.slice(3)).toEqual([''])
    // What was exported imports again as it was (into another tenant's list here).
    const again = await importCsv(lines.join('\r\n'), { token: globex.apiKey })
    expect(await readJson<ImportReport>(again)).toMatchObject({ added: 2, rejected: [] })
    const theirs = await readJson<Page>(await list('?email=dash', globex.apiKey))
    expect(theirs.items).toEqual([
      expect.objectContaining({ email: '-dash@export.test', detail: '=HYPERLINK("http://evil.test")' }),
    ])
  })

  it('exports every entry across its pages, and only the caller’s', async () => {
    const emails = Array.from({ length: 1000 }, (_, i) => `bulk${String(i).padStart(4, '0')}@many.test`)
    await add({ emails })
    await add({ emails: ['bulk9999@many.test'] })
    const text = await (await exportCsv('?email=many.test&reason=manual')).text()
    const rows = text.trim().split('\r\n').slice(1)
    expect(rows).toHaveLength(1001)
    expect(rows.at(-1)).toMatch(/^bulk9999@many\.test,/)
    expect(await (await exportCsv('?email=many.test', globex.apiKey)).text()).toBe(
      'email,reason,scope,detail,created_at\r\n',
    )
  })

  it('refuses a bad filter before answering', async () => {
    const response = await exportCsv('?reason=bored')
    expect(response.status).toBe(400)
    expect(await errorPaths(response)).toEqual(['reason'])
    expect((await exportCsv('?cursor=abc')).status).toBe(400)
  })
})
