import type { AudienceCounts, SegmentFilter } from '@fairlane/core'
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { contacts, listMembers, lists, suppressions } from '../schema'
import { segmentFilterSql } from './segment-filter-sql'
import { findSegmentFilter } from './segments'

/**
 * A campaign's audience: the tenant's subscribed contacts (`unsubscribed_at is null`), or those of
 * one list, or those a segment's filter matches now, minus the addresses the tenant has suppressed. Dispatch walks it by contact id (keyset),
 * so a crash resumes after the last contact turned into a message.
 */
export interface AudienceQuery {
  tenantId: string
  /** Null: every subscribed contact of the tenant. */
  listId: string | null
  /** A saved segment instead of a list (at most one of the two). */
  segmentId?: string | null | undefined
  /** An unsaved filter (the contacts page), AND-ed with the rest. */
  filter?: SegmentFilter | undefined
}

/** The contacts-side condition of a segment or filter; `false` for another tenant's segment id. */
async function matching(db: Executor, query: AudienceQuery): Promise<SQL | undefined> {
  const parts: SQL[] = []
  if (query.segmentId) {
    const filter = await findSegmentFilter(db, { tenantId: query.tenantId, segmentId: query.segmentId })
    parts.push(filter === null ? sql`false` : segmentFilterSql(filter))
  }
  if (query.filter) parts.push(segmentFilterSql(query.filter))
  return and(...parts)
}

export interface AudienceContact {
  id: string
  email: string
  name: string | null
  attributes: Record<string, unknown>
}

/** Contacts of the audience's source (all, or the list's members), before exclusions. */
function source(db: Executor, query: AudienceQuery, filter: SQL | undefined) {
  const base = db
    .select({
      id: contacts.id,
      email: contacts.email,
      name: contacts.name,
      attributes: contacts.attributes,
      unsubscribedAt: contacts.unsubscribedAt,
      suppressed: sql<boolean>`${suppressions.email} is not null`,
    })
    .from(contacts)
    .leftJoin(
      suppressions,
      and(eq(suppressions.tenantId, contacts.tenantId), eq(suppressions.email, contacts.email)),
    )
  const where = and(eq(contacts.tenantId, query.tenantId), filter) as SQL
  if (query.listId === null) return { base, where }
  return {
    base: base.innerJoin(
      listMembers,
      and(
        eq(listMembers.contactId, contacts.id),
        eq(listMembers.listId, query.listId),
        eq(listMembers.tenantId, query.tenantId),
      ),
    ),
    where,
  }
}

const included = and(isNull(contacts.unsubscribedAt), isNull(suppressions.email)) as SQL

/** Recipients, and what is left out: unsubscribed first, then suppressed among the subscribed. */
export async function countAudience(db: Executor, query: AudienceQuery): Promise<AudienceCounts> {
  const members = query.listId === null ? undefined : query.listId
  const filter = await matching(db, query)
  const [row] = await db
    .select({
      recipients: sql<number>`count(*) filter (where ${included})::int`,
      unsubscribed: sql<number>`count(*) filter (where ${contacts.unsubscribedAt} is not null)::int`,
      suppressed: sql<number>`count(*) filter (where ${contacts.unsubscribedAt} is null and ${suppressions.email} is not null)::int`,
    })
    .from(contacts)
    .leftJoin(
      suppressions,
      and(eq(suppressions.tenantId, contacts.tenantId), eq(suppressions.email, contacts.email)),
    )
    .where(
      and(
        eq(contacts.tenantId, query.tenantId),
        members === undefined
          ? undefined
          : sql`exists (select 1 from ${listMembers} where ${listMembers.contactId} = ${contacts.id} and ${listMembers.listId} = ${members} and ${listMembers.tenantId} = ${query.tenantId})`,
        filter,
      ),
    )
  return row ?? { recipients: 0, unsubscribed: 0, suppressed: 0 }
}

/** The next `limit` recipients after `afterContactId` (null: from the start), in contact id order. */
export async function audiencePage(
  db: Executor,
  query: AudienceQuery & { afterContactId: string | null; limit: number },
): Promise<AudienceContact[]> {
  const { base, where } = source(db, query, await matching(db, query))
  const rows = await base
    .where(
      and(where, included, query.afterContactId === null ? undefined : gt(contacts.id, query.afterContactId)),
    )
    .orderBy(asc(contacts.id))
    .limit(query.limit)
  return rows.map(({ id, email, name, attributes }) => ({ id, email, name, attributes }))
}

/** Whether the list exists for this tenant; another tenant's list reads as absent. */
export async function audienceListExists(
  db: Executor,
  query: { tenantId: string; listId: string },
): Promise<boolean> {
  const rows = await db
    .select({ id: lists.id })
    .from(lists)
    .where(and(eq(lists.tenantId, query.tenantId), eq(lists.id, query.listId)))
  return rows.length > 0
}

/** The tenant's lists for the audience picker, by name. */
export async function audienceLists(
  db: Executor,
  query: { tenantId: string; limit?: number },
): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: lists.id, name: lists.name })
    .from(lists)
    .where(eq(lists.tenantId, query.tenantId))
    .orderBy(asc(lists.name))
    .limit(query.limit ?? 500)
}

/** A few contacts to preview a campaign for (the editor's "preview as"), newest first. */
export async function previewContacts(
  db: Executor,
  query: { tenantId: string; limit?: number },
): Promise<AudienceContact[]> {
  return db
    .select({ id: contacts.id, email: contacts.email, name: contacts.name, attributes: contacts.attributes })
    .from(contacts)
    .where(eq(contacts.tenantId, query.tenantId))
    .orderBy(sql`${contacts.createdAt} desc`, asc(contacts.id))
    .limit(query.limit ?? 50)
}

/** One contact of the tenant (the chosen preview contact); null for another tenant's id. */
export async function findPreviewContact(
  db: Executor,
  query: { tenantId: string; contactId: string },
): Promise<AudienceContact | null> {
  const [row] = await db
    .select({ id: contacts.id, email: contacts.email, name: contacts.name, attributes: contacts.attributes })
    .from(contacts)
    .where(and(eq(contacts.tenantId, query.tenantId), eq(contacts.id, query.contactId)))
  return row ?? null
}
