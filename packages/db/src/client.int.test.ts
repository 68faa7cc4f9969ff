import { setupTestEnvironment } from '@fairlane/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from './client'

/**
 * The client's pool with and without pipelining (DATABASE_PIPELINE), on postgres.js as patched for
 * porsager/postgres#1210: a transaction keeps its connection to itself either way, and statements
 * beyond the pool's size wait their turn rather than go astray.
 */
const env = setupTestEnvironment('db-client')
const open: DatabaseHandle[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()))
})

describe.each([true, false])('createDatabase with pipeline: %s', (pipeline) => {
  it('runs no outside statement inside a transaction, however many wait for a connection', async () => {
    const handle = createDatabase(env.databaseUrl, { max: 2, pipeline })
    open.push(handle)
    const { sql } = handle
    // An outside statement that ran on a transaction's connection would see its transaction id.
    const outside = () => sql<{ xid: string | null }[]>`select pg_current_xact_id_if_assigned()::text as xid`
    // Both connections open first, so the pool routes every statement below as a running one would.
    await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`])
    const transactions = [0, 1, 2].map(() =>
      sql.begin(async (tx) => {
        const [own] = await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`
        await tx`select pg_sleep(0.1)`
        const [again] = await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`
        return [own?.xid, again?.xid]
      }),
    )
    const statements = Array.from({ length: 30 }, outside)
    const xids = await Promise.all(transactions)
    for (const [own, again] of xids) expect(again).toBe(own)
    expect(new Set(xids.map(([own]) => own)).size).toBe(3)
    expect((await Promise.all(statements)).map(([row]) => row?.xid ?? null)).toEqual(
      Array.from({ length: 30 }, () => null),
    )
  })
})
