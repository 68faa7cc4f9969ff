import { randomUUID } from 'node:crypto'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../index'
import { contacts, listMembers, lists, suppressions } from '../schema'
import { audienceListExists, audiencePage, countAudience } from './audience'
import { createTenant } from './tenants'
import { createUnsubscribeStore } from './unsubscribe'

const env = setupTestEnvironment('db-audience')
let database: DatabaseHandle
let acme: string
let globex: string
let listId: string
const ids: Record<string, string> = {}

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4 })
  const { db } = database
  acme = (await createTenant(db, { name: 'Acme' })).id
  globex = (await createTenant(db, { name: 'Globex' })).id
  const rows = await db
    .insert(contacts)
    .values([
      { tenantId: acme, email: 'ann@example.com', name: 'Ann' },
      { tenantId: acme, email: 'bob@example.com', name: 'Bob' },
      { tenantId: acme, email: 'cat@example.com', name: 'Cat', unsubscribedAt: new Date() },
      { tenantId: acme, email: 'dan@example.com', name: 'Dan' },
      { tenantId: acme, email: 'eve@example.com', name: 'Eve', unsubscribedAt: new Date() },
      { tenantId: globex, email: 'ann@example.com', name: 'Ann at Globex' },
      { tenantId: globex, email: 'zed@example.com', name: 'Zed' },
    ])
    .returning({ id: contacts.id, tenantId: contacts.tenantId, email: contacts.email })
  for (const row of rows)
    ids[`${row.tenantId === acme ? 'acme' : 'globex'}:${row.email.split('@')[0]}`] = row.id
  // Dan is suppressed at Acme (a hard bounce); Eve is both unsubscribed and suppressed (counted once).
  await db.insert(suppressions).values([
    { tenantId: acme, email: 'dan@example.com', reason: 'hard-bounce' },
    { tenantId: acme, email: 'eve@example.com', reason: 'complaint' },
    // Globex suppressing Bob must not affect Acme's Bob.
    { tenantId: globex, email: 'bob@example.com', reason: 'manual' },
  ])
  const [list] = await db.insert(lists).values({ tenantId: acme, name: 'VIP' }).returning({ id: lists.id })
  listId = list?.id ?? ''
  await db.insert(listMembers).values(
    ['acme:ann', 'acme:cat', 'acme:dan'].map((key) => ({
      tenantId: acme,
      listId,
      contactId: ids[key] ?? '',
    })),
  )
})

afterAll(async () => {
  await database?.close()
})

describe('audience', () => {
  it('all subscribed contacts minus unsubscribed and suppressed, with the excluded counted', async () => {
    expect(await countAudience(database.db, { tenantId: acme, listId: null })).toEqual({
      recipients: 2,
      unsubscribed: 2,
      suppressed: 1,
    })
    const page = await audiencePage(database.db, {
      tenantId: acme,
      listId: null,
      afterContactId: null,
      limit: 10,
    })
    expect(page.map((contact) => contact.email).sort()).toEqual(['ann@example.com', 'bob@example.com'])
  })

  it("a list's members minus exclusions", async () => {
    expect(await countAudience(database.db, { tenantId: acme, listId })).toEqual({
      recipients: 1,
      unsubscribed: 1,
      suppressed: 1,
    })
    const page = await audiencePage(database.db, { tenantId: acme, listId, afterContactId: null, limit: 10 })
    expect(page.map((contact) => contact.email)).toEqual(['ann@example.com'])
  })

  it('walks by keyset in contact id order', async () => {
    const first = await audiencePage(database.db, {
      tenantId: acme,
      listId: null,
      afterContactId: null,
      limit: 1,
    })
    const second = await audiencePage(database.db, {
      tenantId: acme,
      listId: null,
      afterContactId: first[0]?.id ?? null,
      limit: 1,
    })
    const third = await audiencePage(database.db, {
      tenantId: acme,
      listId: null,
      afterContactId: second[0]?.id ?? null,
      limit: 1,
    })
    expect(first).toHaveLength(1)
    expect(second).toHaveLength(1)
    expect((first[0]?.id ?? '') < (second[0]?.id ?? '')).toBe(true)
    expect(third).toEqual([])
  })

  it('keeps tenants apart: another tenant sees none of it, and cannot use the list', async () => {
    expect(await countAudience(database.db, { tenantId: globex, listId: null })).toEqual({
      recipients: 2,
      unsubscribed: 0,
      suppressed: 0,
    })
    expect(await countAudience(database.db, { tenantId: globex, listId })).toEqual({
      recipients: 0,
      unsubscribed: 0,
      suppressed: 0,
    })
    expect(
      await audiencePage(database.db, { tenantId: globex, listId, afterContactId: null, limit: 10 }),
    ).toEqual([])
    expect(await audienceListExists(database.db, { tenantId: globex, listId })).toBe(false)
    expect(await audienceListExists(database.db, { tenantId: acme, listId })).toBe(true)
  })

  it('an unsubscribe leaves the audience at once, idempotently, and suppresses the address', async () => {
    const store = createUnsubscribeStore(database.db)
    const contactId = ids['acme:bob'] ?? ''
    const link = { tenantId: acme, contactId, campaignId: randomUUID(), source: 'link' } as const
    const first = await store.unsubscribe({ ...link, now: new Date('2026-05-01T10:00:00Z') })
    const second = await store.unsubscribe({ ...link, now: new Date('2026-06-01T10:00:00Z') })
    expect(first).toEqual({
      tenantName: 'Acme',
      email: 'bob@example.com',
      unsubscribedAt: new Date('2026-05-01T10:00:00Z'),
    })
    expect(second).toEqual(first)
    expect(await countAudience(database.db, { tenantId: acme, listId: null })).toMatchObject({
      recipients: 1,
      unsubscribed: 3,
    })
    const rows =
      await database.sql`select reason from suppressions where tenant_id = ${acme} and email = 'bob@example.com'`
    expect(rows).toEqual([{ reason: 'unsubscribe' }])
    // The token names a tenant: the same contact id under another tenant changes nothing.
    expect(
      await store.unsubscribe({
        ...link,
        tenantId: globex,
        contactId: ids['acme:ann'] ?? '',
        now: new Date(),
      }),
    ).toBeNull()
    expect(await store.findTarget({ tenantId: acme, contactId: ids['acme:ann'] ?? '' })).toMatchObject({
      unsubscribedAt: null,
    })
  })
})
