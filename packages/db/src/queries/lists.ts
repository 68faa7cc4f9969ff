import type { SegmentFilter } from '@fairlane/core'
import { and, asc, count, eq, gt, ilike, inArray, notExists, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { contacts, listMembers, lists } from '../schema'
import { contactsMatching, escapeLike, hasPgCode, isUniqueViolation } from './contacts'

export interface ListView {
  id: string
  name: string
  memberCount: number
  createdAt: Date
}

export interface ListMemberView {
  id: string
  email: string
  name: string | null
  unsubscribedAt: Date | null
  addedAt: Date
}

const memberCount = sql<number>`(select count(*)::int from ${listMembers} where ${listMembers.listId} = ${lists.id})`

/** The tenant's lists by name, each with its member count. */
export async function listLists(db: Executor, input: { tenantId: string }): Promise<ListView[]> {
  return db
    .select({ id: lists.id, name: lists.name, memberCount, createdAt: lists.createdAt })
    .from(lists)
    .where(eq(lists.tenantId, input.tenantId))
    .orderBy(asc(lists.name))
}

/** Null for an unknown id and for another tenant's list alike. */
export async function getList(
  db: Executor,
  input: { tenantId: string; listId: string },
): Promise<ListView | null> {
  const [row] = await db
    .select({ id: lists.id, name: lists.name, memberCount, createdAt: lists.createdAt })
    .from(lists)
    .where(and(eq(lists.tenantId, input.tenantId), eq(lists.id, input.listId)))
  return row ?? null
}

export async function createList(
  db: Executor,
  input: { tenantId: string; name: string },
): Promise<{ kind: 'created'; id: string } | { kind: 'name_taken' }> {
  const [row] = await db
    .insert(lists)
    .values({ tenantId: input.tenantId, name: input.name })
    .onConflictDoNothing({ target: [lists.tenantId, lists.name] })
    .returning({ id: lists.id })
  return row ? { kind: 'created', id: row.id } : { kind: 'name_taken' }
}

export async function renameList(
  db: Executor,
  input: { tenantId: string; listId: string; name: string },
): Promise<'renamed' | 'not_found' | 'name_taken'> {
  try {
    const rows = await db
      .update(lists)
      .set({ name: input.name })
      .where(and(eq(lists.tenantId, input.tenantId), eq(lists.id, input.listId)))
      .returning({ id: lists.id })
    return rows.length > 0 ? 'renamed' : 'not_found'
  } catch (error) {
    if (isUniqueViolation(error)) return 'name_taken'
    throw error
  }
}

/**
 * Deletes the list and its memberships (cascade); the contacts stay. A list that is a campaign's
 * audience cannot go (the campaign references it): `in_use`, so the page can say which to change first.
 */
export async function deleteList(
  db: Executor,
  input: { tenantId: string; listId: string },
): Promise<'deleted' | 'not_found' | 'in_use'> {
  try {
    const rows = await db
      .delete(lists)
      .where(and(eq(lists.tenantId, input.tenantId), eq(lists.id, input.listId)))
      .returning({ id: lists.id })
    return rows.length > 0 ? 'deleted' : 'not_found'
  } catch (error) {
    if (hasPgCode(error, '23503')) return 'in_use'
    throw error
  }
}

/** A page of a list's members in email order (keyset on email); `nextCursor` null on the last page. */
export async function listMembersPage(
  db: Executor,
  input: { tenantId: string; listId: string; after?: string; limit: number },
): Promise<{ members: ListMemberView[]; nextCursor: string | null }> {
  const rows = await db
    .select({
      id: contacts.id,
      email: contacts.email,
      name: contacts.name,
      unsubscribedAt: contacts.unsubscribedAt,
      addedAt: listMembers.addedAt,
    })
    .from(listMembers)
    .innerJoin(contacts, eq(contacts.id, listMembers.contactId))
    .where(
      and(
        eq(listMembers.tenantId, input.tenantId),
        eq(listMembers.listId, input.listId),
        input.after === undefined ? undefined : gt(contacts.email, input.after),
      ),
    )
    .orderBy(asc(contacts.email))
    .limit(input.limit + 1)
  const more = rows.length > input.limit
  const members = rows.slice(0, input.limit)
  return { members, nextCursor: more ? (members.at(-1)?.email ?? null) : null }
}

/**
 * Adds contacts to a list. Only the tenant's own list and contacts count: ids of another tenant's
 * contacts are skipped as if they did not exist. Null when the list is not the tenant's.
 */
export async function addListMembers(
  db: Executor,
  input: { tenantId: string; listId: string; contactIds: readonly string[] },
): Promise<{ added: number } | null> {
  return addWhere(db, input, inArray(contacts.id, [...input.contactIds]), input.contactIds.length)
}

/**
 * Adds every contact matching a contacts-page search (email or name contains `query`, case-blind)
 * and/or attribute filter, as `searchContacts`, in one statement; null when the list is not the
 * tenant's. Neither a query nor a filter is refused by the caller: "everyone" is not a search.
 */
export async function addListMembersMatching(
  db: Executor,
  input: { tenantId: string; listId: string; query: string; filter?: SegmentFilter | undefined },
): Promise<{ added: number } | null> {
  return addWhere(db, input, contactsMatching(input) ?? sql`false`, 1)
}

/** Adds by email; `unknown` lists the emails that are not contacts of this tenant (nothing is created). */
export async function addListMembersByEmail(
  db: Executor,
  input: { tenantId: string; listId: string; emails: readonly string[] },
): Promise<{ added: number; unknown: string[] } | null> {
  const emails = [...new Set(input.emails)]
  const result = await addWhere(db, input, inArray(contacts.email, emails), emails.length)
  if (result === null) return null
  const found =
    emails.length === 0
      ? []
      : await db
          .select({ email: contacts.email })
          .from(contacts)
          .where(and(eq(contacts.tenantId, input.tenantId), inArray(contacts.email, emails)))
  const known = new Set(found.map((row) => row.email))
  return { added: result.added, unknown: emails.filter((email) => !known.has(email)) }
}

async function addWhere(
  db: Executor,
  input: { tenantId: string; listId: string },
  which: SQL,
  size: number,
): Promise<{ added: number } | null> {
  const list = await getList(db, input)
  if (!list) return null
  if (size === 0) return { added: 0 }
  const added = await db
    .insert(listMembers)
    .select(
      db
        .select({
          tenantId: contacts.tenantId,
          listId: sql<string>`${input.listId}::uuid`.as('list_id'),
          contactId: contacts.id,
          addedAt: sql<Date>`now()`.as('added_at'),
        })
        .from(contacts)
        .where(and(eq(contacts.tenantId, input.tenantId), which)),
    )
    .onConflictDoNothing()
    .returning({ contactId: listMembers.contactId })
  return { added: added.length }
}

export async function removeListMember(
  db: Executor,
  input: { tenantId: string; listId: string; contactId: string },
): Promise<boolean> {
  const rows = await db
    .delete(listMembers)
    .where(
      and(
        eq(listMembers.tenantId, input.tenantId),
        eq(listMembers.listId, input.listId),
        eq(listMembers.contactId, input.contactId),
      ),
    )
    .returning({ contactId: listMembers.contactId })
  return rows.length > 0
}

/** Contacts not yet on the list, matching `query` (email or name), for the "choose from contacts" picker. */
export async function contactsNotInList(
  db: Executor,
  input: { tenantId: string; listId: string; query?: string; limit: number },
): Promise<{ id: string; email: string; name: string | null }[]> {
  const query = input.query?.trim()
  const pattern = query ? `%${escapeLike(query)}%` : undefined
  return db
    .select({ id: contacts.id, email: contacts.email, name: contacts.name })
    .from(contacts)
    .where(
      and(
        eq(contacts.tenantId, input.tenantId),
        pattern ? or(ilike(contacts.email, pattern), ilike(contacts.name, pattern)) : undefined,
        notExists(
          db
            .select({ one: sql`1` })
            .from(listMembers)
            .where(and(eq(listMembers.listId, input.listId), eq(listMembers.contactId, contacts.id))),
        ),
      ),
    )
    .orderBy(asc(contacts.email))
    .limit(input.limit)
}

/** Member counts for the tenant's lists, keyed by list id (for pickers elsewhere, e.g. a campaign's audience). */
export async function listMemberCounts(
  db: Executor,
  input: { tenantId: string },
): Promise<Map<string, number>> {
  const rows = await db
    .select({ listId: listMembers.listId, members: count() })
    .from(listMembers)
    .where(eq(listMembers.tenantId, input.tenantId))
    .groupBy(listMembers.listId)
  return new Map(rows.map((row) => [row.listId, row.members]))
}
