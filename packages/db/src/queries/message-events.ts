import type { MessageEventType } from '@fairlane/core'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messageEvents } from '../schema'

/** One step of a message's life, as written: see `message_events` in the schema. */
export interface MessageEventInput {
  tenantId: string
  messageId: string
  type: MessageEventType
  /** Defaults to the transaction's time (`now()`). */
  at?: Date
  detail?: Record<string, unknown>
  /** Set for an event that may arrive twice: a second one with the same key for the message is dropped. */
  dedupeKey?: string
}

/**
 * Appends events in one statement (call it inside the transaction of the change they describe).
 * Answers how many were written: an event whose dedupe key the message already has is not.
 */
export async function recordMessageEvents(
  db: Executor,
  events: readonly MessageEventInput[],
): Promise<number> {
  if (events.length === 0) return 0
  const rows = await db
    .insert(messageEvents)
    .values(
      events.map((event) => ({
        tenantId: event.tenantId,
        messageId: event.messageId,
        type: event.type,
        ...(event.at ? { at: event.at } : {}),
        detail: event.detail ?? null,
        dedupeKey: event.dedupeKey ?? null,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: messageEvents.id })
  return rows.length
}

export interface MessageEventView {
  id: number
  type: MessageEventType
  at: Date
  detail: Record<string, unknown> | null
}

/** A message's events in the order they happened (this tenant's only). */
export async function listMessageEvents(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<MessageEventView[]> {
  return db
    .select({
      id: messageEvents.id,
      type: messageEvents.type,
      at: messageEvents.at,
      detail: messageEvents.detail,
    })
    .from(messageEvents)
    .where(and(eq(messageEvents.tenantId, query.tenantId), eq(messageEvents.messageId, query.messageId)))
    .orderBy(asc(messageEvents.at), asc(messageEvents.id))
}

/**
 * The retention's delete (EVENT_RETENTION_DAYS): at most `limit` events older than `before`, found by
 * the BRIN on `at` and deleted by their row addresses (no index lookup per row; events are never
 * updated, so an address cannot move under the statement), so each statement holds its locks for
 * milliseconds; the caller loops until a batch comes back short. Answers how many it deleted.
 */
export async function deleteMessageEventsBefore(
  db: Executor,
  batch: { before: Date; limit: number },
): Promise<number> {
  const [row] = await db.execute<{ deleted: number }>(sql`
    with deleted as (
      delete from ${messageEvents}
      where ctid = any(array(
        select ctid from ${messageEvents}
        where at < ${batch.before.toISOString()}::timestamptz
        limit ${batch.limit}))
      returning 1
    )
    select count(*)::int as deleted from deleted
  `)
  return row?.deleted ?? 0
}
