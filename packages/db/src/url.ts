/**
 * Helpers for PostgreSQL URLs: which database a URL names, the same server with another database,
 * and a password-free description for error messages.
 */

const DATABASE_NAME = /^[A-Za-z0-9_-]{1,63}$/

/**
 * Database names are interpolated into CREATE/DROP DATABASE (identifiers cannot be bound as
 * parameters), so only a conservative alphabet is accepted and the name is always double-quoted.
 */
export function quoteDatabaseName(name: string): string {
  if (!DATABASE_NAME.test(name)) {
    throw new Error(`invalid database name "${name}": expected 1-63 letters, digits, _ or -`)
  }
  return `"${name}"`
}

export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''))
  if (name === '') throw new Error(`database URL for ${describeServer(url)} names no database`)
  return name
}

/** The same server, user and options, another database. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${encodeURIComponent(name)}`
  return parsed.toString()
}

/** `host:port` of a database URL, never its user or password: safe for logs and error lines. */
export function describeServer(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`
  } catch {
    return 'an unparsable DATABASE_URL'
  }
}
