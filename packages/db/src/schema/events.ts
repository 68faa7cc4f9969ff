import { sql } from 'drizzle-orm'
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { oneOf, timestamptz } from './columns'
import { MESSAGE_EVENT_TYPES, type MessageEventType } from './literals'
import { tenantId } from './tenant-column'

/**
 * Every step of every message (`MESSAGE_EVENT_TYPES`), written in the transaction of the state change
 * it describes, so the timeline and the message's status never disagree. Append-only and on the hot
 * path (three rows for every mail at least), so it carries as few indexes as it can: the primary key
 * (tenant_id, message_id, id), the timeline's order that also serves the tenant cascade, a BRIN on `at` for the
 * retention's batched deletes (EVENT_RETENTION_DAYS), nearly free to keep up since rows arrive in
 * time order. No foreign keys (to `messages` or `tenants`): an event costs no lookup elsewhere.
 *
 * `dedupe_key` makes an event that may arrive twice (a bounce redelivered by its sender, a webhook of
 * the same complaint) one row: unique per message when set.
 */
export const messageEvents = pgTable(
  'message_events',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    /**
     * No foreign key: its check would be a locking lookup of `tenants` for every event written. A
     * trigger on `tenants` (migration 0014) deletes a removed tenant's events instead, as the cascade
     * of the other tables does.
     */
    tenantId: uuid('tenant_id').notNull(),
    messageId: uuid('message_id').notNull(),
    type: text('type').$type<MessageEventType>().notNull(),
    at: timestamptz('at').notNull().defaultNow(),
    /** What the event says beyond its type: an SMTP reply, a DSN's status and diagnostic, a URL. */
    detail: jsonb('detail').$type<Record<string, unknown>>(),
    dedupeKey: text('dedupe_key'),
  },
  (t) => [
    check('message_events_type_check', oneOf(t.type, MESSAGE_EVENT_TYPES)),
    // The timeline's order and the tenant cascade's lookup in one index: the table's only btree on
    // the hot path (an `id` key of its own would be a second one on every insert).
    primaryKey({ name: 'message_events_pk', columns: [t.tenantId, t.messageId, t.id] }),
    index('message_events_at_brin').using('brin', t.at),
    uniqueIndex('message_events_dedupe_unique')
      .on(t.messageId, t.dedupeKey)
      .where(sql`${t.dedupeKey} is not null`),
  ],
)

/**
 * Soft bounces per address (a full mailbox, a greylisting that never ended): SOFT_BOUNCE_LIMIT of
 * them within 30 days, with no successful delivery in between, suppress the address. `window_start`
 * is the first soft bounce counted; a delivery that went through after `last_soft_at` starts the count
 * again, and removing the address's suppression clears the row.
 */
export const addressBounces = pgTable(
  'address_bounces',
  {
    tenantId: tenantId(),
    email: text('email').notNull(),
    softCount: integer('soft_count').notNull().default(0),
    windowStart: timestamptz('window_start').notNull(),
    lastSoftAt: timestamptz('last_soft_at').notNull(),
    lastMessageId: uuid('last_message_id'),
  },
  (t) => [
    primaryKey({ name: 'address_bounces_pk', columns: [t.tenantId, t.email] }),
    check('address_bounces_email_lowercase_check', sql`${t.email} = lower(${t.email})`),
  ],
)

export type MessageEvent = typeof messageEvents.$inferSelect
export type NewMessageEvent = typeof messageEvents.$inferInsert
export type AddressBounce = typeof addressBounces.$inferSelect
