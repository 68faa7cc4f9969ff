import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { pgErrorCode } from './errors'
import { databaseNameOf, quoteDatabaseName, withDatabaseName } from './url'

/** The generated migrations, found relative to this file so migrating works from any cwd. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url))

/**
 * Advisory lock key held while migrating (an arbitrary constant, "fairlane" in ASCII, truncated to
 * a safe integer). Every process that migrates uses it, so two deploys starting at once apply each
 * migration once instead of racing on the same DDL.
 */
const MIGRATION_LOCK_KEY = 0x66_61_69_72_6c_61

function connect(url: string, applicationName: string) {
  // One connection: a session-level advisory lock belongs to the connection that took it.
  return postgres(url, {
    max: 1,
    connect_timeout: 5,
    // Notices are chatter ("relation exists, skipping"); a migration's WARNING asks the operator to act.
    onnotice: (notice) => {
      if (notice.severity === 'WARNING') process.stderr.write(`migrate: ${notice.message}\n`)
    },
    connection: { application_name: applicationName },
  })
}

/** Applies every pending migration; a no-op when the database is current, so it is safe at every boot. */
export async function migrateDatabase(url: string): Promise<void> {
  const sql = connect(url, 'fairlane-migrate')
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder: MIGRATIONS_FOLDER })
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * Creates the database a URL names when it does not exist yet, through the `postgres` maintenance
 * database on the same server. Tries the database itself first, so a user without CREATEDB can still
 * run this against a database that an operator created.
 */
export async function ensureDatabaseExists(url: string): Promise<'created' | 'existed'> {
  const name = databaseNameOf(url)
  const quoted = quoteDatabaseName(name)
  if (await databaseAccepts(url)) return 'existed'

  const admin = connect(withDatabaseName(url, 'postgres'), 'fairlane-migrate')
  try {
    await admin.unsafe(`create database ${quoted}`)
    return 'created'
  } catch (error) {
    // Another process created it between our check and our CREATE. When both CREATEs overlap, the
    // loser sees the catalog's unique index (23505) rather than duplicate_database (42P04).
    if (isDuplicateDatabase(error)) return 'existed'
    throw error
  } finally {
    await admin.end({ timeout: 5 })
  }
}

const INVALID_CATALOG_NAME = '3D000'

function isDuplicateDatabase(error: unknown): boolean {
  const code = pgErrorCode(error)
  if (code === '42P04') return true
  return (
    code === '23505' &&
    typeof error === 'object' &&
    error !== null &&
    'constraint_name' in error &&
    error.constraint_name === 'pg_database_datname_index'
  )
}

/** True when the database answers; false only when the server says it does not exist. */
async function databaseAccepts(url: string): Promise<boolean> {
  const sql = connect(url, 'fairlane-migrate')
  try {
    await sql`select 1`
    return true
  } catch (error) {
    if (pgErrorCode(error) === INVALID_CATALOG_NAME) return false
    throw error
  } finally {
    await sql.end({ timeout: 5 })
  }
}
