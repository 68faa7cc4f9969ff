import { sql } from 'drizzle-orm'
import { check, customType, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns'
import { messages } from './messages'
import { tenantId } from './tenant-column'

/** PostgreSQL `bytea` as a Node Buffer. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
})

/**
 * A message kept as it was submitted over SMTP (headers, MIME parts, attachments), one row per
 * message: the worker sends these bytes (signed, with its own Message-ID and return path) instead of
 * composing the message from `subject`/`html`/`text`. Removed with its message, and emptied by the
 * body retention like the other bodies.
 */
export const messageContents = pgTable(
  'message_contents',
  {
    messageId: uuid('message_id')
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    tenantId: tenantId(),
    raw: bytea('raw').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('message_contents_tenant_idx').on(t.tenantId, t.createdAt)],
)

/**
 * The attachments of a message accepted through the API, decoded, in the order given. An inline
 * image names its `content_id` (`cid:` in the HTML).
 */
export const messageAttachments = pgTable(
  'message_attachments',
  {
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    tenantId: tenantId(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id'),
    sizeBytes: integer('size_bytes').notNull(),
    content: bytea('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'message_attachments_pk', columns: [t.messageId, t.position] }),
    check('message_attachments_size_check', sql`${t.sizeBytes} >= 0`),
    index('message_attachments_tenant_idx').on(t.tenantId, t.createdAt),
  ],
)

export type MessageContent = typeof messageContents.$inferSelect
export type MessageAttachment = typeof messageAttachments.$inferSelect
