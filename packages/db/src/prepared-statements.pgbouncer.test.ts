import { setupTestEnvironment } from '@fairlane/testing'
import type postgres from 'postgres'
import { afterEach, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from './client'

/**
 * Runs only in the `pgbouncer` project: why DATABASE_PREPARE=false exists. PgBouncer 1.18 (Debian's)
 * in transaction mode gives each transaction whichever server connection is free; a statement that
 * postgres.js prepared (named) on one server does not exist on another. Outside a transaction
 * postgres.js quietly prepares again, but inside one the first error aborts the transaction. (The
 * drizzle `.prepare()` claim runs unnamed with it off: the delivery pipeline test, in this project.)
 */
const env = setupTestEnvironment('pgbouncer-prepare')
const open: DatabaseHandle[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()))
})

/** The pooled URL without `?prepare=false`: as a DATABASE_URL pointing at PgBouncer would be. */
const pooledUrl = () => {
  const url = new URL(env.databaseUrl)
  url.searchParams.delete('prepare')
  return url.toString()
}

/**
 * `a` runs a statement (on server connection S1, which PgBouncer then hands out first again), `b`
 * holds S1 in a transaction, and `a` runs the statement again in a transaction: on S2.
 */
async function statementOnAnotherServer(prepare: boolean | undefined) {
  const [a, b] = [0, 1].map(() => {
    const handle = createDatabase(pooledUrl(), { max: 1, ...(prepare === undefined ? {} : { prepare }) })
    open.push(handle)
    return handle.sql
  }) as [postgres.Sql, postgres.Sql]
  const statement = (sql: postgres.Sql | postgres.TransactionSql, n: number) =>
    sql<{ n: number; pid: number }[]>`select ${n}::int as n, pg_backend_pid() as pid`
  const [first] = await statement(a, 1)
  return b.begin(async (held) => {
    const [holding] = await statement(held, 2)
    const [second] = await a.begin((tx) => statement(tx, 3))
    return { firstPid: first?.pid, holdingPid: holding?.pid, secondPid: second?.pid }
  })
}

describe('prepared statements through PgBouncer 1.18 in transaction mode', () => {
  it('fail with prepared statements on (postgres.js default, DATABASE_PREPARE=true)', async () => {
    await expect(statementOnAnotherServer(undefined)).rejects.toThrow(
      /prepared statement "\w+" does not exist/,
    )
  })

  it('work with DATABASE_PREPARE=false, on another server connection', async () => {
    const pids = await statementOnAnotherServer(false)
    expect(pids.holdingPid).toBe(pids.firstPid)
    expect(pids.secondPid).not.toBe(pids.firstPid)
  })
})
