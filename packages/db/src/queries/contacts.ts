import type { ContactFields, SegmentFilter, UpsertCounts } from '@fairlane/core'
import { and, asc, desc, eq, gt, ilike, inArray, lt, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { pgErrorCode } from '../errors'
import { contacts, listMembers, lists } from '../schema'
import { segmentFilterSql } from './segment-filter-sql'
import { suppressAddress } from './suppressions'

/** Rows per INSERT: 4 parameters each stays far below PostgreSQL's 65,535 bind parameters. */
const UPSERT_CHUNK = 1000

export interface ContactView {
  id: string
  email: string
  name: string | null
  attributes: Record<string, unknown>
  unsubscribedAt: Date | null
  createdAt: Date
  lists: { id: string; name: string }[]
}

const columns = {
  id: contacts.id,
  email: contacts.email,
  name: contacts.name,
  attributes: contacts.attributes,
  unsubscribedAt: contacts.unsubscribedAt,
  createdAt: contacts.createdAt,
}

/**
 * Creates or updates contacts by (tenant, email), in one transaction so a failure writes none.
 * A given name replaces the stored one, an absent name keeps it; attributes are merged (new keys
 * win), so re-importing a file with fewer columns does not erase what another import added.
 * `unsubscribed_at` is never touched: importing an address again must not resubscribe it.
 * Rows are sorted by email so two concurrent imports lock rows in the same order (no deadlock).
 */
export async function upsertContacts(
  db: Executor,
  input: { tenantId: string; contacts: readonly ContactFields[] },
): Promise<UpsertCounts & { rows: { id: string; email: string; inserted: boolean }[] }> {
  const sorted = [...input.contacts].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))
  return db.transaction(async (tx) => {
    const rows: { id: string; email: string; inserted: boolean }[] = []
    for (let start = 0; start < sorted.length; start += UPSERT_CHUNK) {
      const chunk = sorted.slice(start, start + UPSERT_CHUNK)
      const written = await tx
        .insert(contacts)
        .values(chunk.map((contact) => ({ tenantId: input.tenantId, ...contact })))
        .onConflictDoUpdate({
          target: [contacts.tenantId, contacts.email],
          set: {
            name: sql`coalesce(excluded.name, ${contacts.name})`,
            attributes: sql`${contacts.attributes} || excluded.attributes`,
            updatedAt: sql`now()`,
          },
        })
        // xmax is 0 on a freshly inserted row version and set on one produced by the update branch.
        .returning({ id: contacts.id, email: contacts.email, inserted: sql<boolean>`(xmax = 0)` })
      rows.push(...written)
    }
    const created = rows.filter((row) => row.inserted).length
    return { created, updated: rows.length - created, rows }
  })
}

/** drizzle wraps the driver's error; `pgErrorCode` finds the SQLSTATE on it or on its cause. */
export function hasPgCode(error: unknown, code: string): boolean {
  return pgErrorCode(error) === code
}

export const isUniqueViolation = (error: unknown) => hasPgCode(error, '23505')

/** `%`, `_` and `\` typed into a search box are literal characters, not patterns. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`)
}

export interface ContactPage {
  contacts: ContactView[]
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null
  /** Pass as `before` for the previous page; null on the first page. */
  prevCursor: string | null
}

/**
 * A page of contacts in email order, keyset-paged on the (tenant, email) unique index, so page 500
 * costs what page 1 costs. `query` matches email or name anywhere, case-blind.
 */
export async function searchContacts(
  db: Executor,
  input: {
    tenantId: string
    query?: string
    filter?: SegmentFilter | undefined
    after?: string
    before?: string
    limit: number
  },
): Promise<ContactPage> {
  const conditions: (SQL | undefined)[] = [eq(contacts.tenantId, input.tenantId), contactsMatching(input)]
  const backwards = input.before !== undefined && input.after === undefined
  if (input.after !== undefined) conditions.push(gt(contacts.email, input.after))
  if (backwards) conditions.push(lt(contacts.email, input.before as string))
  const rows = await db
    .select(columns)
    .from(contacts)
    .where(and(...conditions))
    .orderBy(backwards ? desc(contacts.email) : asc(contacts.email))
    .limit(input.limit + 1)
  const more = rows.length > input.limit
  const page = rows.slice(0, input.limit)
  if (backwards) page.reverse()
  const withLists = await attachLists(db, input.tenantId, page)
  const first = withLists[0]?.email ?? null
  const last = withLists.at(-1)?.email ?? null
  return {
    contacts: withLists,
    nextCursor: backwards ? last : more ? last : null,
    prevCursor: backwards ? (more ? first : null) : input.after !== undefined ? first : null,
  }
}

async function attachLists(
  db: Executor,
  tenantId: string,
  rows: Omit<ContactView, 'lists'>[],
): Promise<ContactView[]> {
  if (rows.length === 0) return []
  const memberships = await db
    .select({ contactId: listMembers.contactId, id: lists.id, name: lists.name })
    .from(listMembers)
    .innerJoin(lists, eq(lists.id, listMembers.listId))
    .where(
      and(
        eq(listMembers.tenantId, tenantId),
        inArray(
          listMembers.contactId,
          rows.map((row) => row.id),
        ),
      ),
    )
    .orderBy(asc(lists.name))
  return rows.map((row) => ({
    ...row,
    lists: memberships.filter((m) => m.contactId === row.id).map(({ id, name }) => ({ id, name })),
  }))
}

/**
 * The contacts page's narrowing: a text search (email or name contains it, case-blind) and an
 * attribute filter, both optional, AND-ed. Undefined when there is neither.
 */
export function contactsMatching(input: { query?: string | undefined; filter?: SegmentFilter | undefined }) {
  const query = input.query?.trim()
  const pattern = query ? `%${escapeLike(query)}%` : undefined
  return and(
    pattern ? or(ilike(contacts.email, pattern), ilike(contacts.name, pattern)) : undefined,
    input.filter ? segmentFilterSql(input.filter) : undefined,
  )
}

/** The tenant's contacts, or those a search and/or filter matches. */
export async function countContacts(
  db: Executor,
  input: { tenantId: string; query?: string; filter?: SegmentFilter | undefined },
): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(contacts)
    .where(and(eq(contacts.tenantId, input.tenantId), contactsMatching(input)))
  return row?.count ?? 0
}

/** Null for an unknown id and for another tenant's: the caller answers both with "not found". */
export async function getContact(
  db: Executor,
  input: { tenantId: string; contactId: string },
): Promise<ContactView | null> {
  const [row] = await db
    .select(columns)
    .from(contacts)
    .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
  if (!row) return null
  const [withLists] = await attachLists(db, input.tenantId, [row])
  return withLists ?? null
}

/** Adds one contact; `exists` when the email is already a contact of this tenant. */
export async function createContact(
  db: Executor,
  input: { tenantId: string; contact: ContactFields },
): Promise<{ kind: 'created'; id: string } | { kind: 'exists'; id: string }> {
  const [row] = await db
    .insert(contacts)
    .values({ tenantId: input.tenantId, ...input.contact })
    .onConflictDoNothing({ target: [contacts.tenantId, contacts.email] })
    .returning({ id: contacts.id })
  if (row) return { kind: 'created', id: row.id }
  const [existing] = await db
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.email, input.contact.email)))
  if (!existing) throw new Error('contact insert conflicted but no contact has the email')
  return { kind: 'exists', id: existing.id }
}

/** Replaces email, name and attributes; `email_taken` when another contact of the tenant has the email. */
export async function updateContact(
  db: Executor,
  input: { tenantId: string; contactId: string; contact: ContactFields },
): Promise<'updated' | 'not_found' | 'email_taken'> {
  try {
    const rows = await db
      .update(contacts)
      .set({ ...input.contact, updatedAt: sql`now()` })
      .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
      .returning({ id: contacts.id })
    return rows.length > 0 ? 'updated' : 'not_found'
  } catch (error) {
    if (isUniqueViolation(error)) return 'email_taken'
    throw error
  }
}

export async function deleteContact(
  db: Executor,
  input: { tenantId: string; contactId: string },
): Promise<boolean> {
  const rows = await db
    .delete(contacts)
    .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
    .returning({ id: contacts.id })
  return rows.length > 0
}

/** Keeps the first unsubscribe time when repeated (the record of when consent was withdrawn). */
export async function unsubscribeContact(
  db: Executor,
  input: { tenantId: string; contactId: string },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(contacts)
      .set({ unsubscribedAt: sql`coalesce(${contacts.unsubscribedAt}, now())`, updatedAt: sql`now()` })
      .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
      .returning({ email: contacts.email })
    if (!row) return false
    // Like the unsubscribe link: campaign mail stops, the person's transactional mail still goes.
    await suppressAddress(tx, { tenantId: input.tenantId, email: row.email, reason: 'unsubscribe' })
    return true
  })
}
