import { randomUUID } from 'node:crypto'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { messages } from '../schema'
import { listMessageEvents } from './message-events'
import { claimBulkByIds, pagePendingBulk, returnBulkRelease } from './pacer'
import { createTenant } from './tenants'

/** The receiver pacer's reads and claims: a tenant's pending bulk rows paged with their domain, claimed by id. */
const env = setupTestEnvironment('db-pacer-receiver')

let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'db-pacer-receiver-test' })
})
afterAll(async () => {
  await database?.close()
})

async function pending(
  tenantId: string,
  addresses: string[],
  values: Partial<typeof messages.$inferInsert> = {},
) {
  const ids: string[] = []
  // One at a time with increasing created_at, so the creation order is the insertion order.
  for (const [index, toAddress] of addresses.entries()) {
    const [row] = await database.db
      .insert(messages)
      .values({
        tenantId,
        lane: 'bulk',
        status: 'pending',
        toAddress,
        subject: 'Hi',
        text: 'Hi',
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
        ...values,
      })
      .returning({ id: messages.id })
    ids.push(row?.id as string)
  }
  return ids
}

describe('receiver pacer store', () => {
  it('pages a tenant’s pending bulk rows in creation order after a cursor, with the domain in lower case', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Pages' })).id
    const other = (await createTenant(database.db, { name: 'Other' })).id
    const ids = await pending(tenantId, [
      'a@Gmail.COM',
      'b@outlook.com',
      'c@gmail.com',
      'd@yahoo.com',
      'e@x.org',
    ])
    await pending(other, ['z@gmail.com'])
    await pending(tenantId, ['sent@gmail.com'], { status: 'queued' })
    await pending(tenantId, ['default@gmail.com'], { lane: 'default' })

    const first = await pagePendingBulk(database.db, { tenantId, after: null, limit: 2 })
    expect(first.map((row) => [row.messageId, row.domain])).toEqual([
      [ids[0], 'gmail.com'],
      [ids[1], 'outlook.com'],
    ])
    const last = first.at(-1)
    if (!last) throw new Error('no page')
    const second = await pagePendingBulk(database.db, {
      tenantId,
      after: { createdAt: last.createdAt, messageId: last.messageId },
      limit: 10,
    })
    expect(second.map((row) => row.messageId)).toEqual(ids.slice(2))
    expect(second.every((row) => row.tenantId === tenantId)).toBe(true)
    await expect(pagePendingBulk(database.db, { tenantId, after: null, limit: 0 })).rejects.toThrow(/limit/)
  })

  it('claims exactly the rows asked for, with their queued events, skips rows gone or of another tenant, and gives back', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Claims' })).id
    const other = (await createTenant(database.db, { name: 'Someone else' })).id
    const ids = await pending(tenantId, ['a@gmail.com', 'b@gmail.com', 'c@gmail.com'])
    const [foreign] = await pending(other, ['f@gmail.com'])
    const [taken] = await pending(tenantId, ['t@gmail.com'], { status: 'queued' })

    const released = await database.db.transaction((tx) =>
      claimBulkByIds(tx, [
        { tenantId, messageId: ids[2] as string },
        { tenantId, messageId: ids[0] as string },
        { tenantId, messageId: taken as string },
        { tenantId, messageId: foreign as string },
        { tenantId, messageId: randomUUID() },
      ]),
    )
    expect(released.map((row) => row.messageId).sort()).toEqual([ids[0], ids[2]].sort())
    const events = await listMessageEvents(database.db, { tenantId, messageId: ids[0] as string })
    expect(events.map((event) => event.type)).toEqual(['queued'])
    const left = await pagePendingBulk(database.db, { tenantId, after: null, limit: 10 })
    expect(left.map((row) => row.messageId)).toEqual([ids[1]])
    const stillForeign = await pagePendingBulk(database.db, { tenantId: other, after: null, limit: 10 })
    expect(stillForeign.map((row) => row.messageId)).toEqual([foreign])

    expect(await returnBulkRelease(database.db, released)).toBe(2)
    const back = await pagePendingBulk(database.db, { tenantId, after: null, limit: 10 })
    expect(back.map((row) => row.messageId)).toEqual(ids)
  })

  it('passes by rows another claimer holds (SKIP LOCKED)', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Locks' })).id
    const ids = await pending(tenantId, ['a@gmail.com', 'b@gmail.com'])
    const wanted = ids.map((messageId) => ({ tenantId, messageId }))
    let inner: string[] = []
    await database.db.transaction(async (tx) => {
      const held = await claimBulkByIds(tx, wanted.slice(0, 1))
      expect(held).toHaveLength(1)
      inner = (await database.db.transaction((other) => claimBulkByIds(other, wanted))).map(
        (row) => row.messageId,
      )
    })
    expect(inner).toEqual([ids[1]])
  })
})
