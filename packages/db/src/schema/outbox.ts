import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt, timestamptz } from './columns'

/**
 * Events that must reach a queue, written in the same transaction as the rows they describe and
 * published by the relay (at least once). `tenant_id` has no foreign key: some events are
 * platform-wide, and the relay's handlers already tolerate rows that are gone.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id'),
    topic: text('topic').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    publishedAt: timestamptz('published_at'),
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [
    // The relay claims the oldest unpublished rows; published history never enters this index.
    index('outbox_unpublished_idx').on(t.id).where(sql`${t.publishedAt} is null`),
    index('outbox_published_at_idx').on(t.publishedAt),
  ],
)

export type OutboxRow = typeof outbox.$inferSelect
export type NewOutboxRow = typeof outbox.$inferInsert
