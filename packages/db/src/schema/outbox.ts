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
    /**
     * Set by the relay on a transactional row whose tenant is over its lane slots or bucket: the
     * tenant's lane (`<lane>:<tenantId>`) and when the row may be looked at again (its estimated turn).
     * A parked row stays unpublished: PostgreSQL holds the flood, the lane holds only what can run.
     */
    parkKey: text('park_key'),
    parkedUntil: timestamptz('parked_until'),
  },
  (t) => [
    // The relay claims the oldest unpublished, unparked rows; published history and a flooding
    // tenant's parked rows never enter this index, so a flood costs the next claim nothing.
    index('outbox_unpublished_idx')
      .on(t.id)
      .where(sql`${t.publishedAt} is null and ${t.parkedUntil} is null`),
    // The same rows by tenant: the claim walks the tenants with rows waiting (one probe each) and takes
    // each one's oldest in turn, so one tenant's flood cannot fill the batch (claimUnpublishedOutbox).
    index('outbox_unpublished_tenant_idx')
      .on(t.tenantId, t.id)
      .where(sql`${t.publishedAt} is null and ${t.parkedUntil} is null`),
    // Parked rows by their turn: the relay claims the due ones and sleeps until the next.
    index('outbox_parked_idx')
      .on(t.parkedUntil, t.id)
      .where(sql`${t.publishedAt} is null and ${t.parkedUntil} is not null`),
    // The same rows by tenant lane: the parked claim walks the lanes (one probe each) and takes at
    // most a lane's slots of each one's due rows (claimDueParkedOutbox).
    index('outbox_parked_key_idx')
      .on(t.parkKey, t.parkedUntil, t.id)
      .where(sql`${t.publishedAt} is null and ${t.parkedUntil} is not null`),
    index('outbox_published_at_idx').on(t.publishedAt),
  ],
)

export type OutboxRow = typeof outbox.$inferSelect
export type NewOutboxRow = typeof outbox.$inferInsert
