import { databaseDirectUrl, loadConfig } from '@fairlane/config'
import { pgErrorCode } from './errors'
import { ensureDatabaseExists, migrateDatabase } from './migrate'
import { databaseNameOf, describeServer } from './url'

/**
 * `pnpm db:migrate`: creates the database if needed and applies pending migrations. Prints one
 * line either way; errors name DATABASE_DIRECT_URL's (else DATABASE_URL's) host:port but never its credentials.
 */

/** Codes meaning "could not reach or log in to the server", as opposed to a failing migration. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
  '57P03', // cannot_connect_now (server starting up)
])

const config = loadConfig()
// The migrator holds a session advisory lock: PostgreSQL itself, never a transaction pooler.
const url = databaseDirectUrl(config)
const server = describeServer(url)
const DIRECT_NAME = config.DATABASE_DIRECT_URL === undefined ? 'DATABASE_URL' : 'DATABASE_DIRECT_URL'

try {
  const name = databaseNameOf(url)
  const existence = await ensureDatabaseExists(url)
  await migrateDatabase(url)
  const created = existence === 'created' ? 'created and ' : ''
  console.log(`fairlane: database "${name}" on ${server} ${created}migrated`)
} catch (error) {
  const code = pgErrorCode(error)
  // Node 20 reports a refused dual-stack connect as an AggregateError with an empty message.
  const reason = (error instanceof Error && error.message) || code || String(error)
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    console.error(`fairlane: cannot connect to PostgreSQL at ${server} (${DIRECT_NAME}): ${reason}`)
  } else {
    console.error(`fairlane: migrating the database at ${server} (${DIRECT_NAME}) failed: ${reason}`)
  }
  process.exitCode = 1
}
