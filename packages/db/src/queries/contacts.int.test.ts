import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import {
  createContact,
  deleteContact,
  escapeLike,
  getContact,
  searchContacts,
  unsubscribeContact,
  updateContact,
  upsertContacts,
} from './contacts'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-contacts')

let database: DatabaseHandle
let acme: string
let globex: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl)
  acme = (await createTenant(database.db, { name: 'Acme' })).id
  globex = (await createTenant(database.db, { name: 'Globex' })).id
})

afterAll(async () => {
  await database?.close()
})

const contact = (email: string, name: string | null = null) => ({ email, name, attributes: {} })

describe('contacts queries', () => {
  it('upserts in chunks and tells inserted from updated rows', async () => {
    const batch = Array.from({ length: 2500 }, (_, i) => contact(`u${String(i).padStart(4, '0')}@a.test`))
    const first = await upsertContacts(database.db, { tenantId: acme, contacts: batch })
    expect([first.created, first.updated]).toEqual([2500, 0])
    const again = await upsertContacts(database.db, {
      tenantId: acme,
      contacts: [...batch.slice(0, 10), contact('fresh@a.test')],
    })
    expect([again.created, again.updated]).toEqual([1, 10])
    expect(again.rows.find((row) => row.email === 'fresh@a.test')?.inserted).toBe(true)
  })

  it('pages by email both ways and searches literally', async () => {
    const page1 = await searchContacts(database.db, { tenantId: acme, limit: 1000 })
    expect(page1.contacts).toHaveLength(1000)
    expect(page1.prevCursor).toBeNull()
    const page2 = await searchContacts(database.db, {
      tenantId: acme,
      after: page1.nextCursor ?? '',
      limit: 1000,
    })
    expect((page2.contacts[0]?.email ?? '') > (page1.contacts.at(-1)?.email ?? '')).toBe(true)
    const back = await searchContacts(database.db, {
      tenantId: acme,
      before: page2.prevCursor ?? '',
      limit: 1000,
    })
    expect(back.contacts.map((c) => c.email)).toEqual(page1.contacts.map((c) => c.email))
    expect(back.prevCursor).toBeNull()

    await upsertContacts(database.db, {
      tenantId: acme,
      contacts: [contact('under_score@a.test', '100% Ann')],
    })
    expect(
      (await searchContacts(database.db, { tenantId: acme, query: '100%', limit: 10 })).contacts,
    ).toHaveLength(1)
    // `_` is not a wildcard: "r_s" must not match "u0001@…"-style text.
    expect(
      (await searchContacts(database.db, { tenantId: acme, query: 'r_s', limit: 10 })).contacts,
    ).toHaveLength(1)
    expect(escapeLike('a%b_c\\')).toBe('a\\%b\\_c\\\\')
  })

  it("never reads or changes another tenant's contact", async () => {
    const created = await createContact(database.db, {
      tenantId: acme,
      contact: contact('own@a.test', 'Own'),
    })
    expect(created.kind).toBe('created')
    const id = created.id
    expect(await createContact(database.db, { tenantId: acme, contact: contact('own@a.test') })).toEqual({
      kind: 'exists',
      id,
    })
    expect(await getContact(database.db, { tenantId: globex, contactId: id })).toBeNull()
    expect(
      await updateContact(database.db, { tenantId: globex, contactId: id, contact: contact('x@a.test') }),
    ).toBe('not_found')
    expect(await unsubscribeContact(database.db, { tenantId: globex, contactId: id })).toBe(false)
    expect(await deleteContact(database.db, { tenantId: globex, contactId: id })).toBe(false)
    const still = await getContact(database.db, { tenantId: acme, contactId: id })
    expect(still).toMatchObject({ email: 'own@a.test', name: 'Own', unsubscribedAt: null })
    expect((await searchContacts(database.db, { tenantId: globex, limit: 10 })).contacts).toEqual([])
  })

  it('updates, refuses a taken email, unsubscribes once and deletes', async () => {
    const { id } = await createContact(database.db, { tenantId: acme, contact: contact('edit@a.test') })
    expect(
      await updateContact(database.db, {
        tenantId: acme,
        contactId: id,
        contact: { email: 'edited@a.test', name: 'E', attributes: { k: 1 } },
      }),
    ).toBe('updated')
    expect(
      await updateContact(database.db, { tenantId: acme, contactId: id, contact: contact('own@a.test') }),
    ).toBe('email_taken')
    expect(await unsubscribeContact(database.db, { tenantId: acme, contactId: id })).toBe(true)
    const first = (await getContact(database.db, { tenantId: acme, contactId: id }))?.unsubscribedAt
    expect(first).toBeInstanceOf(Date)
    await unsubscribeContact(database.db, { tenantId: acme, contactId: id })
    expect((await getContact(database.db, { tenantId: acme, contactId: id }))?.unsubscribedAt).toEqual(first)
    expect(await deleteContact(database.db, { tenantId: acme, contactId: id })).toBe(true)
    expect(await getContact(database.db, { tenantId: acme, contactId: id })).toBeNull()
  })
})
