import { randomBytes } from 'node:crypto'
import { quoteDatabaseName, withDatabaseName } from '@fairlane/db'
import postgres from 'postgres'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createTestDatabase, prepareTemplateDatabase, type TestDatabase } from './database'

// Runs without the global setup so it can test the pieces the global setup is made of.
const serverUrl = inject('databaseServerUrl')

const databases: TestDatabase[] = []
// Templates private to this file: the shared `fairlane_tpl_<fingerprint>` may be in use by other runs.
const templates: string[] = []

function privateTemplateName(): string {
  const name = `fairlane_tpl_test_${randomBytes(5).toString('hex')}`
  templates.push(name, `${name}_wip`)
  return name
}

afterAll(async () => {
  for (const database of databases) await database.drop()
  const admin = postgres(withDatabaseName(serverUrl, 'postgres'), { max: 1, onnotice: () => {} })
  try {
    for (const name of templates)
      await admin.unsafe(`drop database if exists ${quoteDatabaseName(name)} with (force)`)
  } finally {
    await admin.end()
  }
})

async function publicTables(url: string): Promise<string[]> {
  const sql = postgres(url, { max: 1 })
  try {
    const rows = await sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public'`
    return rows.map((row) => row.table_name)
  } finally {
    await sql.end()
  }
}

describe('test databases', () => {
  it('names the template after the migrations', async () => {
    expect(await prepareTemplateDatabase(serverUrl)).toMatch(/^fairlane_tpl_[0-9a-f]{12}$/)
  }, 60_000)

  it('builds one template however many callers race for it', async () => {
    const name = privateTemplateName()
    const names = await Promise.all([1, 2, 3].map(() => prepareTemplateDatabase(serverUrl, { name })))
    expect(names).toEqual([name, name, name])
    expect(await publicTables(withDatabaseName(serverUrl, name))).toContain('messages')
  }, 60_000)

  it('clones migrated databases from the template, concurrently, and drops them', async () => {
    const template = await prepareTemplateDatabase(serverUrl)
    const [first, second] = await Promise.all([
      createTestDatabase(serverUrl, template),
      createTestDatabase(serverUrl, template),
    ])
    if (!first || !second) throw new Error('expected two databases')
    databases.push(first, second)
    expect(first.name).not.toBe(second.name)
    for (const database of [first, second]) {
      expect(await publicTables(database.url)).toEqual(
        expect.arrayContaining(['tenants', 'messages', 'outbox']),
      )
    }

    // drop() ends sessions still open on the database, as a test that forgot to close would leave.
    const lingering = postgres(first.url, { max: 1 })
    await lingering`select 1`
    await first.drop()
    await first.drop()
    await lingering.end({ timeout: 1 }).catch(() => {})
    const admin = postgres(serverUrl, { max: 1 })
    try {
      const rows = await admin`select 1 from pg_database where datname = ${first.name}`
      expect(rows).toHaveLength(0)
    } finally {
      await admin.end()
    }
  }, 60_000)

  it('never shows a half-built template: a leftover build is replaced', async () => {
    const template = privateTemplateName()
    const admin = postgres(withDatabaseName(serverUrl, 'postgres'), { max: 1, onnotice: () => {} })
    try {
      // A build that crashed mid-way: an empty `_wip` database and no template under the final name.
      await admin.unsafe(`create database ${quoteDatabaseName(`${template}_wip`)}`)
      expect(await prepareTemplateDatabase(serverUrl, { name: template })).toBe(template)
      expect(await publicTables(withDatabaseName(serverUrl, template))).toContain('messages')
      const leftovers = await admin`select 1 from pg_database where datname = ${`${template}_wip`}`
      expect(leftovers).toHaveLength(0)
    } finally {
      await admin.end()
    }
  }, 60_000)
})
