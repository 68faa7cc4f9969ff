import { MESSAGE_PUBLISH_TOPIC, type MessagePublishEvent, OUTBOX_CHANNEL } from '@fairlane/core'
import { and, asc, inArray, isNull, notInArray, sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../client'
import { outbox } from '../schema'

export interface OutboxEntry {
  id: number
  tenantId: string | null
  topic: string
  payload: Record<string, unknown>
  attempts: number
}

/**
 * The relay's claim: the oldest unpublished rows of the given topics, locked for the rest of the
 * transaction. SKIP LOCKED lets several relays work side by side, each on rows the others do not
 * hold, instead of queueing behind one another. `skipIds` leaves out rows this relay could not parse
 * (a newer producer's payload, say) so they cannot fill every batch; another relay may still take them.
 */
export async function claimUnpublishedOutbox(
  tx: Transaction,
  input: { topics: readonly string[]; limit: number; skipIds?: readonly number[] },
): Promise<OutboxEntry[]> {
  const conditions = [isNull(outbox.publishedAt), inArray(outbox.topic, [...input.topics])]
  if (input.skipIds && input.skipIds.length > 0) conditions.push(notInArray(outbox.id, [...input.skipIds]))
  return tx
    .select({
      id: outbox.id,
      tenantId: outbox.tenantId,
      topic: outbox.topic,
      payload: outbox.payload,
      attempts: outbox.attempts,
    })
    .from(outbox)
    .where(and(...conditions))
    .orderBy(asc(outbox.id))
    .limit(input.limit)
    .for('update', { skipLocked: true })
}

export async function markOutboxPublished(tx: Transaction, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await tx
    .update(outbox)
    .set({ publishedAt: sql`now()` })
    .where(inArray(outbox.id, [...ids]))
}

/** Counts a failed publish (Redis away, unparseable payload): visible to operators, never a reason to drop. */
export async function countOutboxAttempt(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .update(outbox)
    .set({ attempts: sql`${outbox.attempts} + 1` })
    .where(inArray(outbox.id, [...ids]))
}

/** "Put this message on its lane", written in the caller's transaction with the row it describes. */
export async function insertMessagePublishEvent(db: Executor, event: MessagePublishEvent): Promise<void> {
  await db
    .insert(outbox)
    .values({ tenantId: event.tenantId, topic: MESSAGE_PUBLISH_TOPIC, payload: { ...event } })
}

/** Wakes the relays; inside a transaction PostgreSQL delivers it at COMMIT, never for a rolled-back row. */
export async function notifyOutbox(db: Executor): Promise<void> {
  await db.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, '')`)
}
