import { createHash, randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pgErrorCode, quoteDatabaseName, withDatabaseName } from '@fairlane/db'
import { MIGRATIONS_FOLDER, migrateDatabase } from '@fairlane/db/migrate'
import postgres from 'postgres'

/**
 * Databases for integration tests. The migrations run once per schema version into a template
 * database; each test file then gets `CREATE DATABASE … TEMPLATE`, a file copy that takes a fraction
 * of the time migrating would, so files run in parallel on databases of their own.
 */

const OBJECT_IN_USE = '55006' // "source database is being accessed by other users"

/** First key of the two-key advisory lock guarding template builds (second: hash of the name). */
const TEMPLATE_LOCK_CLASS = 0x66_6c_74 // "flt"

/**
 * A short-lived connection to the `postgres` maintenance database. Always the same database, because
 * advisory locks are per database: every caller must lock in the same one to exclude the others.
 */
function connectAdmin(serverUrl: string) {
  return postgres(withDatabaseName(serverUrl, 'postgres'), {
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { application_name: 'fairlane-testing' },
  })
}

type AdminSql = ReturnType<typeof connectAdmin>

/** First 12 hex digits of the SHA-256 over every migration's SQL, in file order: the schema version. */
async function migrationsFingerprint(): Promise<string> {
  const files = (await readdir(MIGRATIONS_FOLDER)).filter((file) => file.endsWith('.sql')).sort()
  const hash = createHash('sha256')
  for (const file of files) hash.update(await readFile(join(MIGRATIONS_FOLDER, file)))
  return hash.digest('hex').slice(0, 12)
}

async function databaseExists(admin: AdminSql, name: string): Promise<boolean> {
  const rows = await admin`select 1 from pg_database where datname = ${name}`
  return rows.length > 0
}

/**
 * Runs a statement that needs the named database free of sessions (RENAME, TEMPLATE): a session
 * that just closed can linger for a moment on the server, so 55006 is retried with a short backoff.
 */
async function whenUnused(admin: AdminSql, statement: string, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(statement)
      return
    } catch (error) {
      if (pgErrorCode(error) !== OBJECT_IN_USE || attempt >= attempts) throw error
      await sleep(50 * attempt + Math.random() * 50)
    }
  }
}

export interface TemplateOptions {
  /** Overrides the fingerprint name, so this helper's own tests race on a template nobody else uses. */
  name?: string
}

/**
 * Makes sure a migrated template for the current migrations exists on the server of `serverUrl`
 * (any database URL on that server) and returns its name, `fairlane_tpl_<fingerprint>`. Concurrent
 * callers are safe: builds are serialized by an advisory lock, and a template is built under a
 * `_wip` name and renamed only once migrated (and free of sessions), so a half-migrated template is
 * never visible, even after a crash mid-build.
 */
export async function prepareTemplateDatabase(
  serverUrl: string,
  options: TemplateOptions = {},
): Promise<string> {
  const name = options.name ?? `fairlane_tpl_${await migrationsFingerprint()}`
  const building = `${name}_wip`
  const admin = connectAdmin(serverUrl)
  try {
    if (await databaseExists(admin, name)) return name
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK_CLASS}, hashtext(${name}))`
    try {
      if (await databaseExists(admin, name)) return name
      // A leftover from a build that crashed: its state is unknown, so start over.
      await admin.unsafe(`drop database if exists ${quoteDatabaseName(building)} with (force)`)
      await admin.unsafe(`create database ${quoteDatabaseName(building)}`)
      await migrateDatabase(withDatabaseName(serverUrl, building))
      await whenUnused(
        admin,
        `alter database ${quoteDatabaseName(building)} rename to ${quoteDatabaseName(name)}`,
      )
      return name
    } finally {
      await admin`select pg_advisory_unlock(${TEMPLATE_LOCK_CLASS}, hashtext(${name}))`
    }
  } finally {
    await admin.end({ timeout: 5 })
  }
}

export interface TestDatabase {
  url: string
  name: string
  /** Drops the database, closing any session still connected to it. Safe to call twice. */
  drop(): Promise<void>
}

/** A fresh database cloned from `templateName`, on the server of `serverUrl`. */
export async function createTestDatabase(serverUrl: string, templateName: string): Promise<TestDatabase> {
  const name = `fairlane_t_${randomBytes(6).toString('hex')}`
  const admin = connectAdmin(serverUrl)
  try {
    await whenUnused(
      admin,
      `create database ${quoteDatabaseName(name)} template ${quoteDatabaseName(templateName)}`,
    )
  } finally {
    await admin.end({ timeout: 5 })
  }
  return {
    url: withDatabaseName(serverUrl, name),
    name,
    drop: async () => {
      const dropper = connectAdmin(serverUrl)
      try {
        await dropper.unsafe(`drop database if exists ${quoteDatabaseName(name)} with (force)`)
      } finally {
        await dropper.end({ timeout: 5 })
      }
    },
  }
}
