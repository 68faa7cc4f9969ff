import type { SegmentFilter } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import {
  SUPPRESSION_REASONS,
  SUPPRESSION_SCOPES,
  type SuppressionReason,
  type SuppressionScope,
} from './literals'
import { tenantId } from './tenant-column'

/** A tenant's audience. Emails are stored lowercased so uniqueness and suppression match case-blind. */
export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    email: text('email').notNull(),
    name: text('name'),
    attributes: jsonb('attributes').$type<Record<string, unknown>>().notNull().default({}),
    unsubscribedAt: timestamptz('unsubscribed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('contacts_tenant_email_unique').on(t.tenantId, t.email),
    // Keyset paging (`where tenant_id = $1 and id > $cursor order by id`), also how dispatch walks an audience.
    index('contacts_tenant_id_idx').on(t.tenantId, t.id),
    check('contacts_email_lowercase_check', sql`${t.email} = lower(${t.email})`),
    // Segment filters: `attributes @> '{"city":"Berlin"}'` (equals, in) and `attributes ? 'vip'`
    // (exists) are answered from it. jsonb_ops rather than jsonb_path_ops, which cannot serve `?`.
    index('contacts_attributes_gin_idx').using('gin', t.attributes),
  ],
)

export const lists = pgTable(
  'lists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique('lists_tenant_name_unique').on(t.tenantId, t.name)],
)

export const listMembers = pgTable(
  'list_members',
  {
    tenantId: tenantId(),
    listId: uuid('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    addedAt: timestamptz('added_at').notNull().defaultNow(),
  },
  (t) => [
    // (list_id, contact_id) also orders a list's members by contact id for dispatch's keyset walk.
    primaryKey({ name: 'list_members_pk', columns: [t.listId, t.contactId] }),
    index('list_members_tenant_contact_idx').on(t.tenantId, t.contactId),
  ],
)

/**
 * Addresses a tenant must not mail again. Checked at dispatch and again at send, so an address
 * suppressed after dispatch is still skipped. `message_id` names the delivery that caused it (no
 * foreign key: message retention must not be blocked by, or erase, a suppression).
 * `scope` says which mail it stops (`suppressionStops` in core): `marketing` campaign mail only (an
 * unsubscribe), `all` every lane (a hard bounce, a complaint, a manual entry). One row per address:
 * a wider entry replaces a narrower one, never the other way round.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    tenantId: tenantId(),
    email: text('email').notNull(),
    reason: text('reason').$type<SuppressionReason>().notNull(),
    scope: text('scope').$type<SuppressionScope>().notNull().default('all'),
    messageId: uuid('message_id'),
    /** Why, in the words of what caused it: a bounce's diagnostic, a complaint's feedback type. */
    detail: text('detail'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'suppressions_pk', columns: [t.tenantId, t.email] }),
    check('suppressions_reason_check', oneOf(t.reason, SUPPRESSION_REASONS)),
    check('suppressions_scope_check', oneOf(t.scope, SUPPRESSION_SCOPES)),
    check('suppressions_email_lowercase_check', sql`${t.email} = lower(${t.email})`),
  ],
)

/**
 * A saved attribute filter (`SegmentFilter` in core), resolved to contacts whenever it is used: at a
 * campaign's send time, on the contacts page. Deleting one only marks it (`deleted_at`), so a sent
 * campaign still names its audience; a live name is unique per tenant.
 */
export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    filter: jsonb('filter').$type<SegmentFilter>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [
    uniqueIndex('segments_tenant_name_live_unique').on(t.tenantId, t.name).where(sql`${t.deletedAt} is null`),
    index('segments_tenant_id_idx').on(t.tenantId, t.id),
  ],
)

export type Segment = typeof segments.$inferSelect
export type Contact = typeof contacts.$inferSelect
export type NewContact = typeof contacts.$inferInsert
export type List = typeof lists.$inferSelect
export type NewList = typeof lists.$inferInsert
export type ListMember = typeof listMembers.$inferSelect
export type NewListMember = typeof listMembers.$inferInsert
export type Suppression = typeof suppressions.$inferSelect
export type NewSuppression = typeof suppressions.$inferInsert
