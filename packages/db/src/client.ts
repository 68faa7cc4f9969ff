import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import postgres, { type Sql } from 'postgres'
import * as schema from './schema'

/** The drizzle instance every query function takes first (or a `Transaction`). */
export type Database = PostgresJsDatabase<typeof schema>
/** What `db.transaction(async (tx) => …)` hands to its callback. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0]
/** Either: queries take `(db or tx, …)` so the outbox row joins the business row's transaction. */
export type Executor = Database | Transaction

export interface DatabaseOptions {
  /** Pool size; each process sizes its own (web, worker) so the server's max_connections holds. */
  max?: number
  /** Shown in `pg_stat_activity`, so an admin can tell the web, the worker and the relay apart. */
  applicationName?: string
  /**
   * `false` (DATABASE_PREPARE=false): every statement unnamed (postgres.js `prepare: false`), drizzle's `.prepare()` ones
   * included. A transaction pooler (PgBouncer before 1.21) hands each transaction another server
   * connection, where a statement prepared on the last one does not exist (DATABASE_PREPARE).
   */
  prepare?: boolean
  /**
   * `false` (DATABASE_PIPELINE=false): one statement at a time on each connection (postgres.js
   * `max_pipeline: 0`). postgres.js otherwise sends a statement while the one before it still runs;
   * PgBouncer 1.18 in transaction mode gives the server connection back at the first statement's
   * ReadyForQuery and drops the replies to the second ("got packet '1' from server when not linked"),
   * whose query then never returns. Defaults to `prepare`: off wherever prepared statements are.
   */
  pipeline?: boolean
}

export interface DatabaseHandle {
  db: Database
  /** The raw postgres.js client, for LISTEN/NOTIFY and the few statements drizzle cannot express. */
  sql: Sql
  /** Waits for running queries, then closes every connection. */
  close(): Promise<void>
}

/**
 * What DATABASE_PREPARE and DATABASE_PIPELINE ask of every pool on DATABASE_URL: one place that reads
 * them, for each composition root (as `redisTarget` reads REDIS_URL and REDIS_CLUSTER).
 */
export function poolerSettings(config: {
  DATABASE_PREPARE: boolean
  DATABASE_PIPELINE?: boolean | undefined
}): Pick<DatabaseOptions, 'prepare' | 'pipeline'> {
  return { prepare: config.DATABASE_PREPARE, pipeline: config.DATABASE_PIPELINE }
}

/** Creates a pool; called only by a composition root (worker main, web server container, tests). */
export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const sql = postgres(url, {
    max: options.max ?? 10,
    // Only ever turned off here: absent, postgres.js prepares unless the URL says `?prepare=false`.
    ...(options.prepare === false ? { prepare: false } : {}),
    ...((options.pipeline ?? options.prepare) === false ? { max_pipeline: 0 } : {}),
    // Fail fast when the server is unreachable instead of hanging a request or a boot.
    connect_timeout: 5,
    idle_timeout: 30,
    // NOTICEs (e.g. "relation already exists, skipping") are noise in structured logs.
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'fairlane' },
  })
  const db = drizzle({ client: sql, schema })
  return {
    db,
    sql,
    close: () => sql.end({ timeout: 5 }),
  }
}
