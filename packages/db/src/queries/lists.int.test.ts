import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns } from '../schema'
import { createContact, getContact } from './contacts'
import {
  addListMembers,
  addListMembersByEmail,
  contactsNotInList,
  createList,
  deleteList,
  getList,
  listLists,
  listMemberCounts,
  listMembersPage,
  removeListMember,
  renameList,
} from './lists'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-lists')

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

const add = async (tenantId: string, email: string) =>
  (await createContact(database.db, { tenantId, contact: { email, name: null, attributes: {} } })).id

describe('lists queries', () => {
  it('creates, renames and deletes, refusing duplicate names per tenant only', async () => {
    const created = await createList(database.db, { tenantId: acme, name: 'Customers' })
    if (created.kind !== 'created') throw new Error('not created')
    expect(await createList(database.db, { tenantId: acme, name: 'Customers' })).toEqual({
      kind: 'name_taken',
    })
    expect((await createList(database.db, { tenantId: globex, name: 'Customers' })).kind).toBe('created')
    const other = await createList(database.db, { tenantId: acme, name: 'Other' })
    if (other.kind !== 'created') throw new Error('not created')
    expect(await renameList(database.db, { tenantId: acme, listId: other.id, name: 'Customers' })).toBe(
      'name_taken',
    )
    expect(await renameList(database.db, { tenantId: acme, listId: other.id, name: 'Partners' })).toBe(
      'renamed',
    )
    expect((await listLists(database.db, { tenantId: acme })).map((list) => list.name)).toEqual([
      'Customers',
      'Partners',
    ])
    expect(await deleteList(database.db, { tenantId: acme, listId: other.id })).toBe('deleted')
    expect(await getList(database.db, { tenantId: acme, listId: other.id })).toBeNull()
  })

  it('adds only the tenant’s own contacts, by id or email, and counts members', async () => {
    const list = await createList(database.db, { tenantId: acme, name: 'Members' })
    if (list.kind !== 'created') throw new Error('not created')
    const ann = await add(acme, 'ann@a.test')
    const bo = await add(acme, 'bo@a.test')
    const foreign = await add(globex, 'ann@a.test')
    expect(
      await addListMembers(database.db, { tenantId: acme, listId: list.id, contactIds: [ann, foreign] }),
    ).toEqual({
      added: 1,
    })
    // Adding again is a no-op, not an error.
    expect(await addListMembers(database.db, { tenantId: acme, listId: list.id, contactIds: [ann] })).toEqual(
      {
        added: 0,
      },
    )
    expect(
      await addListMembersByEmail(database.db, {
        tenantId: acme,
        listId: list.id,
        emails: ['bo@a.test', 'nobody@a.test'],
      }),
    ).toEqual({ added: 1, unknown: ['nobody@a.test'] })
    const page = await listMembersPage(database.db, { tenantId: acme, listId: list.id, limit: 1 })
    expect(page.members.map((member) => member.email)).toEqual(['ann@a.test'])
    expect(page.nextCursor).toBe('ann@a.test')
    expect((await getList(database.db, { tenantId: acme, listId: list.id }))?.memberCount).toBe(2)
    expect((await listMemberCounts(database.db, { tenantId: acme })).get(list.id)).toBe(2)
    expect((await getContact(database.db, { tenantId: acme, contactId: bo }))?.lists).toEqual([
      { id: list.id, name: 'Members' },
    ])
    expect(await contactsNotInList(database.db, { tenantId: acme, listId: list.id, limit: 10 })).toEqual([])
    expect(await removeListMember(database.db, { tenantId: acme, listId: list.id, contactId: bo })).toBe(true)
    expect(
      (await contactsNotInList(database.db, { tenantId: acme, listId: list.id, query: 'BO', limit: 10 })).map(
        (contact) => contact.id,
      ),
    ).toEqual([bo])
  })

  it('refuses to delete a list that is a campaign audience', async () => {
    const list = await createList(database.db, { tenantId: acme, name: 'Audience' })
    if (list.kind !== 'created') throw new Error('not created')
    await database.db
      .insert(campaigns)
      .values({ tenantId: acme, name: 'C', subject: 'S', html: '<p>x</p>', listId: list.id })
    expect(await deleteList(database.db, { tenantId: acme, listId: list.id })).toBe('in_use')
    expect(await getList(database.db, { tenantId: acme, listId: list.id })).not.toBeNull()
  })

  it("answers not found for another tenant's list", async () => {
    const list = await createList(database.db, { tenantId: acme, name: 'Private' })
    if (list.kind !== 'created') throw new Error('not created')
    const theirs = await add(globex, 'g@g.test')
    const q = { tenantId: globex, listId: list.id }
    expect(await getList(database.db, q)).toBeNull()
    expect(await addListMembers(database.db, { ...q, contactIds: [theirs] })).toBeNull()
    expect(await addListMembersByEmail(database.db, { ...q, emails: ['g@g.test'] })).toBeNull()
    expect(await renameList(database.db, { ...q, name: 'Mine' })).toBe('not_found')
    expect(await removeListMember(database.db, { ...q, contactId: theirs })).toBe(false)
    expect(await deleteList(database.db, q)).toBe('not_found')
    expect((await listMembersPage(database.db, { ...q, limit: 10 })).members).toEqual([])
    expect((await getList(database.db, { tenantId: acme, listId: list.id }))?.name).toBe('Private')
  })
})
