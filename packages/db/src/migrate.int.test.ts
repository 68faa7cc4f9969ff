import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { pgErrorCode } from './errors'
import { ensureDatabaseExists, MIGRATIONS_FOLDER, migrateDatabase } from './migrate'
import { quoteDatabaseName, withDatabaseName } from './url'

// The lead switches this to vitest `inject('databaseServerUrl')` once the global setup lands.
const serverUrl = inject('databaseServerUrl')

const MAIN_TABLES = [
  'tenants',
  'users',
  'sessions',
  'accounts',
  'verifications',
  'memberships',
  'api_keys',
  'contacts',
  'lists',
  'list_members',
  'templates',
  'campaigns',
  'messages',
  'outbox',
  'suppressions',
  'job_cursors',
  'tenant_daily_stats',
  'admin_audit_log',
  'tenant_audit_log',
]

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const created: string[] = []

function randomName(prefix: string): string {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`
  created.push(name)
  return name
}

afterAll(async () => {
  for (const name of created)
    await admin.unsafe(`drop database if exists ${quoteDatabaseName(name)} with (force)`)
  await admin.end()
})

describe('migrateDatabase', () => {
  const name = randomName('fairlane_migrate_test')
  const url = withDatabaseName(serverUrl, name)
  const sql = postgres(url, { max: 2, onnotice: () => {} })

  beforeAll(async () => {
    await admin.unsafe(`create database ${quoteDatabaseName(name)}`)
  })
  afterAll(async () => {
    await sql.end()
  })

  it('applies the migrations and is a no-op the second time', async () => {
    await migrateDatabase(url)
    const [first] = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`
    await migrateDatabase(url)
    const [second] = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`
    expect(first?.n).toBeGreaterThan(0)
    expect(second?.n).toBe(first?.n)

    const tables = await sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public'`
    expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(MAIN_TABLES))
  }, 30_000)

  it('turns JIT off for the database: its sessions plan short statements without compiling them', async () => {
    await migrateDatabase(url)
    // A session of its own, opened after the migration: the database's default applies to it.
    const fresh = postgres(url, { max: 1, onnotice: () => {} })
    try {
      const [setting] = await fresh<{ jit: string }[]>`show jit`
      expect(setting?.jit).toBe('off')
    } finally {
      await fresh.end()
    }
  }, 30_000)

  it('migrates once when two processes migrate at the same time', async () => {
    const racing = randomName('fairlane_migrate_race')
    await admin.unsafe(`create database ${quoteDatabaseName(racing)}`)
    const racingUrl = withDatabaseName(serverUrl, racing)
    await Promise.all([migrateDatabase(racingUrl), migrateDatabase(racingUrl)])
    const check = postgres(racingUrl, { max: 1 })
    try {
      const [row] = await check`select count(*)::int as n from drizzle.__drizzle_migrations`
      const [applied] = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`
      expect(row?.n).toBe(applied?.n)
    } finally {
      await check.end()
    }
  }, 30_000)

  it('rejects a lane outside the literal union', async () => {
    const [tenant] = await sql`insert into tenants (name) values ('Acme') returning id`
    const error = await sql`
      insert into messages (tenant_id, lane, to_address) values (${tenant?.id}, 'express', 'a@example.com')
    `.catch((caught: unknown) => caught)
    expect(pgErrorCode(error)).toBe('23514') // check_violation
    expect(String(error)).toContain('messages_lane_check')
  })

  it('rejects a second message with the same idempotency key for a tenant, not for another', async () => {
    const [acme, globex] = await sql`insert into tenants (name) values ('Acme'), ('Globex') returning id`
    const insert = (tenantId: string, key: string | null) => sql`
      insert into messages (tenant_id, lane, to_address, idempotency_key)
      values (${tenantId}, 'critical', 'a@example.com', ${key})`
    await insert(acme?.id, 'key-1')
    const error = await insert(acme?.id, 'key-1').catch((caught: unknown) => caught)
    expect(pgErrorCode(error)).toBe('23505') // unique_violation
    expect(String(error)).toContain('messages_tenant_idempotency_key_unique')
    await insert(globex?.id, 'key-1')
    // Messages without a key never collide.
    await insert(acme?.id, null)
    await insert(acme?.id, null)
  })
})

describe('the suppression scopes migration', () => {
  it('keeps bounces, complaints and manual entries on every lane and scopes unsubscribes to marketing', async () => {
    const name = randomName('fairlane_scopes_migration')
    await admin.unsafe(`create database ${quoteDatabaseName(name)}`)
    const url = withDatabaseName(serverUrl, name)
    // The migrations before this one (found by its name: the number may change when branches merge).
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'))
    const at = journal.entries.findIndex((entry: { tag: string }) =>
      entry.tag.endsWith('_suppression_scopes'),
    )
    expect(at).toBeGreaterThan(0)
    const before = mkdtempSync(join(tmpdir(), 'fairlane-migrations-'))
    const sql = postgres(url, { max: 1, onnotice: () => {} })
    try {
      cpSync(MIGRATIONS_FOLDER, before, { recursive: true })
      writeFileSync(
        join(before, 'meta/_journal.json'),
        JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }),
      )
      await migrate(drizzle({ client: sql }), { migrationsFolder: before })
      const [tenant] = await sql`insert into tenants (name) values ('Old rows') returning id`
      await sql`insert into suppressions (tenant_id, email, reason) values
        (${tenant?.id}, 'left@example.com', 'unsubscribe'),
        (${tenant?.id}, 'bounced@example.com', 'hard-bounce'),
        (${tenant?.id}, 'spam@example.com', 'complaint'),
        (${tenant?.id}, 'typed@example.com', 'manual')`
      // Unsubscribed from the contact page, which wrote no suppression before this migration.
      await sql`insert into contacts (tenant_id, email, unsubscribed_at) values
        (${tenant?.id}, 'quiet@example.com', '2026-01-02T03:04:05Z'),
        (${tenant?.id}, 'bounced@example.com', '2026-01-01T00:00:00Z'),
        (${tenant?.id}, 'here@example.com', null)`

      await migrateDatabase(url)
      const rows = await sql`select email, reason, scope, created_at from suppressions order by email`
      expect(rows.map(({ email, reason, scope }) => ({ email, reason, scope }))).toEqual([
        { email: 'bounced@example.com', reason: 'hard-bounce', scope: 'all' },
        { email: 'left@example.com', reason: 'unsubscribe', scope: 'marketing' },
        { email: 'quiet@example.com', reason: 'unsubscribe', scope: 'marketing' },
        { email: 'spam@example.com', reason: 'complaint', scope: 'all' },
        { email: 'typed@example.com', reason: 'manual', scope: 'all' },
      ])
      const quiet = rows.find((row) => row.email === 'quiet@example.com')
      expect(new Date(quiet?.created_at).toISOString()).toBe('2026-01-02T03:04:05.000Z')
    } finally {
      await sql.end()
      rmSync(before, { recursive: true, force: true })
    }
  }, 30_000)
})

describe('ensureDatabaseExists', () => {
  it('creates a missing database, then reports that it exists', async () => {
    const url = withDatabaseName(serverUrl, randomName('fairlane_ensure_test'))
    expect(await ensureDatabaseExists(url)).toBe('created')
    expect(await ensureDatabaseExists(url)).toBe('existed')
  }, 30_000)

  it('tolerates two processes creating the same database at once', async () => {
    const url = withDatabaseName(serverUrl, randomName('fairlane_ensure_race'))
    const results = await Promise.all([ensureDatabaseExists(url), ensureDatabaseExists(url)])
    expect(results.every((result) => result === 'created' || result === 'existed')).toBe(true)
  }, 30_000)

  it('refuses a database name that would need quoting tricks', async () => {
    await expect(ensureDatabaseExists(withDatabaseName(serverUrl, 'bad"name'))).rejects.toThrow(
      /invalid database name/,
    )
  })
})
