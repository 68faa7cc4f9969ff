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
