import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { messages } from '../schema'
import { leaveActiveIfEmpty, readActiveTenants } from './bulk-backlog-tenants'
import { claimBulkRelease, returnBulkRelease } from './pacer'
import { createTenant } from './tenants'

/**
 * The bulk pacer's active set: migration 0028's triggers add a tenant whenever a row becomes pending
 * bulk mail, the pacer reads only the changes since its last read, and a tenant leaves only when it
 * is empty and nobody is adding rows to it at that moment.
 */
const env = setupTestEnvironment('db-bulk-backlog-tenants')

let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'db-bulk-backlog-tenants-test' })
})
afterAll(async () => {
  await database?.close()
})

async function insertMessages(
  tenantId: string,
  count: number,
  values: Partial<typeof messages.$inferInsert> = {},
): Promise<void> {
  await database.db.insert(messages).values(
    Array.from({ length: count }, (_, index) => ({
      tenantId,
      lane: 'bulk' as const,
      status: 'pending' as const,
      toAddress: `r${index}@example.test`,
      subject: 'Hi',
      text: 'Hi',
      ...values,
    })),
  )
}

async function activeIds(): Promise<string[]> {
  return (await readActiveTenants(database.db, { after: null })).tenants.map((tenant) => tenant.tenantId)
}

describe('bulk_backlog_tenants', () => {
  it('adds a tenant when rows become pending bulk mail, by insert or by update, and nothing else', async () => {
    const inserted = (await createTenant(database.db, { name: 'Inserted' })).id
    const updated = (await createTenant(database.db, { name: 'Updated' })).id
    const transactional = (await createTenant(database.db, { name: 'Transactional' })).id
    await insertMessages(inserted, 3)
    await insertMessages(updated, 2, { status: 'queued' })
    await insertMessages(transactional, 2, { lane: 'default', status: 'queued' })
    expect(await activeIds()).toContain(inserted)
    expect(await activeIds()).not.toContain(updated)
    expect(await activeIds()).not.toContain(transactional)

    // A release given back (queued → pending) is one more way in.
    await database.db.execute(sql`update messages set status = 'pending' where tenant_id = ${updated}`)
    const read = await readActiveTenants(database.db, { after: null })
    const row = read.tenants.find((tenant) => tenant.tenantId === updated)
    expect(row).toMatchObject({ ratePerSec: 10, weight: 1 })
    expect(read.tenants.map((tenant) => tenant.tenantId)).not.toContain(transactional)
  })

  it('reads only the tenants stamped since the last read, including a commit that came late', async () => {
    const first = (await createTenant(database.db, { name: 'First' })).id
    await insertMessages(first, 1)
    const before = await readActiveTenants(database.db, { after: null })
    expect((await readActiveTenants(database.db, { after: before.cursor })).tenants).toEqual([])

    // A transaction that stamps a tenant and commits only after a later one committed and was read.
    const slow = (await createTenant(database.db, { name: 'Slow' })).id
    const fast = (await createTenant(database.db, { name: 'Fast' })).id
    let letGo: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      letGo = resolve
    })
    let stamped: () => void = () => {}
    const slowStamped = new Promise<void>((resolve) => {
      stamped = resolve
    })
    const slowTransaction = database.db.transaction(async (tx) => {
      await tx.insert(messages).values({
        tenantId: slow,
        lane: 'bulk',
        status: 'pending',
        toAddress: 'a@b.test',
        subject: 's',
        text: 't',
      })
      stamped()
      await held
    })
    await slowStamped
    await insertMessages(fast, 1)
    const middle = await readActiveTenants(database.db, { after: before.cursor })
    expect(middle.tenants.map((tenant) => tenant.tenantId)).toEqual([fast])
    letGo()
    await slowTransaction
    const after = await readActiveTenants(database.db, { after: middle.cursor })
    expect(after.tenants.map((tenant) => tenant.tenantId)).toContain(slow)
  })

  it('reads only what changed while a long transaction elsewhere stays open', async () => {
    let letGo: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      letGo = resolve
    })
    let opened: () => void = () => {}
    const open = new Promise<void>((resolve) => {
      opened = resolve
    })
    // Holds an xid (and so the database's xmin) for the whole test, as a long report or backup would.
    const longTransaction = database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_current_xact_id()`)
      opened()
      await held
    })
    await open
    try {
      const a = (await createTenant(database.db, { name: 'During A' })).id
      await insertMessages(a, 1)
      const first = await readActiveTenants(database.db, { after: null })
      const b = (await createTenant(database.db, { name: 'During B' })).id
      await insertMessages(b, 1)
      const second = await readActiveTenants(database.db, { after: first.cursor })
      expect(second.tenants.map((tenant) => tenant.tenantId)).toEqual([b])
      const third = await readActiveTenants(database.db, { after: second.cursor })
      expect(third.tenants).toEqual([])
    } finally {
      letGo()
      await longTransaction
    }
  })

  it('lets a tenant leave only when empty and unstamped since the pacer read it', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Leaving' })).id
    await insertMessages(tenantId, 2)
    const read = await readActiveTenants(database.db, { after: null })
    const seq = read.tenants.find((tenant) => tenant.tenantId === tenantId)?.seq as number

    // Rows left: it stays.
    expect(await leaveActiveIfEmpty(database.db, [{ tenantId, seq }])).toEqual([])
    const released = await database.db.transaction((tx) => claimBulkRelease(tx, [{ tenantId, count: 5 }]))
    expect(released).toHaveLength(2)
    // Given back (pending again, stamped anew) then claimed again: empty, but its seq moved on.
    await returnBulkRelease(database.db, released)
    await database.db.transaction((tx) => claimBulkRelease(tx, [{ tenantId, count: 5 }]))
    expect(await leaveActiveIfEmpty(database.db, [{ tenantId, seq }])).toEqual([])
    const reread = await readActiveTenants(database.db, { after: null })
    const newSeq = reread.tenants.find((tenant) => tenant.tenantId === tenantId)?.seq as number
    expect(newSeq).toBeGreaterThan(seq)
    // Its commit does not wait for the WAL flush (`noFlushWait`), in its own transaction only.
    const left = await database.db.transaction(async (tx) => {
      const gone = await leaveActiveIfEmpty(tx, [{ tenantId, seq: newSeq }])
      const [row] = await tx.execute<{ value: string }>(
        sql`select current_setting('synchronous_commit') as value`,
      )
      return { gone, setting: row?.value }
    })
    expect(left).toEqual({ gone: [tenantId], setting: 'off' })
    expect(await activeIds()).not.toContain(tenantId)
  })

  it('never drops a tenant whose rows a transaction is adding at that moment', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Racing' })).id
    await insertMessages(tenantId, 1)
    await database.db.transaction((tx) => claimBulkRelease(tx, [{ tenantId, count: 1 }]))
    const seq = (await readActiveTenants(database.db, { after: null })).tenants.find(
      (tenant) => tenant.tenantId === tenantId,
    )?.seq as number

    // A dispatch inserts pending rows and has not committed when the pacer finds the tenant empty.
    let letGo: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      letGo = resolve
    })
    let inserted: () => void = () => {}
    const rowsWritten = new Promise<void>((resolve) => {
      inserted = resolve
    })
    const dispatch = database.db.transaction(async (tx) => {
      await tx
        .insert(messages)
        .values({ tenantId, lane: 'bulk', status: 'pending', toAddress: 'n@b.test', subject: 's', text: 't' })
      inserted()
      await held
    })
    await rowsWritten
    expect(await leaveActiveIfEmpty(database.db, [{ tenantId, seq }])).toEqual([])
    letGo()
    await dispatch
    expect(await activeIds()).toContain(tenantId)
  })
})
