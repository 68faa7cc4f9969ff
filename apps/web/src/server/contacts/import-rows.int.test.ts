import { createList } from '@fairlane/db/queries/lists'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, jsonRequest, readJson, seedTenant, type WebHarness } from '../test-support/harness'
import { postImportRows } from './import-rows'

const env = setupTestEnvironment('web-import-rows')

let harness: WebHarness
let tenantId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  tenantId = (await seedTenant(harness, 'Importer')).tenantId
})

afterAll(async () => {
  await harness?.close()
})

const send = (body: unknown, options: { tenant?: string | null; headers?: Record<string, string> } = {}) =>
  postImportRows(jsonRequest('/contacts/import/rows', { body, headers: options.headers }), {
    db: harness.database.db,
    logger: harness.logger,
    tenantId: async () => (options.tenant === undefined ? tenantId : options.tenant),
  })

describe('POST /contacts/import/rows', () => {
  it('upserts good rows and answers every bad one with its line', async () => {
    const response = await send({
      header: ['Email', 'Name', 'City'],
      rows: [
        { line: 2, cells: ['a@b.test', 'A', 'Hanoi'] },
        { line: 3, cells: ['', 'No email'] },
        { line: 4, cells: ['A@b.test', 'Twice'] },
        { line: 5, cells: ['c@b.test', 'C', 'x', 'extra'] },
      ],
    })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({
      columns: { emailIndex: 0, ignored: [] },
      created: 1,
      updated: 0,
      blank: 0,
      rejected: [
        { line: 3, email: null, reason: 'missing email' },
        { line: 4, email: 'A@b.test', reason: expect.stringContaining('first seen on line 2') },
        { line: 5, email: 'c@b.test', reason: expect.stringContaining('too many columns') },
      ],
    })
    const again = await send({ header: ['email'], rows: [{ line: 2, cells: ['a@b.test'] }] })
    expect(await readJson(again)).toMatchObject({ created: 0, updated: 1 })
  })

  it('adds the imported contacts to a chosen list, and refuses another tenant’s list before writing', async () => {
    const list = await createList(harness.database.db, { tenantId, name: `Imported ${Date.now()}` })
    if (list.kind !== 'created') throw new Error('list not created')
    const response = await send({
      header: ['email'],
      listId: list.id,
      rows: [
        { line: 2, cells: ['list1@b.test'] },
        { line: 3, cells: ['not an address'] },
        { line: 4, cells: ['list2@b.test'] },
      ],
    })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toMatchObject({ created: 2, addedToList: 2, rejected: [{ line: 3 }] })
    const members = await harness.database.sql`
      select c.email from list_members m join contacts c on c.id = m.contact_id
      where m.list_id = ${list.id} order by c.email`
    expect(members.map((row) => row.email)).toEqual(['list1@b.test', 'list2@b.test'])

    const other = (await seedTenant(harness, 'Other importer')).tenantId
    const foreign = await createList(harness.database.db, { tenantId: other, name: 'Theirs' })
    if (foreign.kind !== 'created') throw new Error('list not created')
    const refused = await send({
      header: ['email'],
      listId: foreign.id,
      rows: [{ line: 2, cells: ['x@b.test'] }],
    })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(await readJson(refused))).toContain('listId')
    const [written] = await harness.database
      .sql`select count(*)::int as n from contacts where email = 'x@b.test'`
    expect(written?.n).toBe(0)
  })

  it('refuses a header without an email column, naming the delimiter', async () => {
    const response = await send({ header: ['email|name'], rows: [] })
    expect(response.status).toBe(400)
    const { error } = await readJson<{ error: { details: { path: string; message: string }[] } }>(response)
    expect(error.details[0]).toEqual({
      path: 'header',
      message: expect.stringContaining('is the delimiter right?'),
    })
  })

  it('answers 401 without a session and 403 for a foreign origin, writing nothing', async () => {
    const body = { header: ['email'], rows: [{ line: 2, cells: ['z@b.test'] }] }
    expect((await send(body, { tenant: null })).status).toBe(401)
    expect((await send(body, { headers: { origin: 'https://evil.test' } })).status).toBe(403)
    const [row] = await harness.database.sql`select count(*)::int as n from contacts where email = 'z@b.test'`
    expect(row?.n).toBe(0)
  })

  it('refuses malformed batches with 400', async () => {
    expect((await send({ header: [], rows: [] })).status).toBe(400)
    expect((await send({ header: ['email'], rows: [{ line: 'x', cells: [] }] })).status).toBe(400)
  })
})
