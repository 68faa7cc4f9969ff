import { sql } from 'drizzle-orm'

/**
 * A CTE named `no_flush_wait` that turns `synchronous_commit` off for the transaction of the statement
 * that scans it (`set_config(…, true)`: this transaction only, so it is also safe behind PgBouncer in
 * transaction mode). That statement's commit returns without waiting for its WAL to reach the disk, a
 * wait that grows to tens of milliseconds while other writers keep PostgreSQL flushing. A crash of
 * PostgreSQL (not of a worker) may then lose the last fraction of a second of such commits; the data
 * stays consistent, and any later commit that does wait (a message's `sent` mark) flushes them first.
 *
 * Only for writes whose loss is repaired by what already guards against a lost job: the pacer's
 * releases (the rows stay pending and are released again; a job already added claims its row either
 * way) and the active set's leaves (the tenant leaves again). Never for a send's claim or mark.
 * The statement must scan it (`from no_flush_wait, …`): an unreferenced CTE is not run.
 */
export const noFlushWait = sql`no_flush_wait as materialized (
  select set_config('synchronous_commit', 'off', true) as setting)`
