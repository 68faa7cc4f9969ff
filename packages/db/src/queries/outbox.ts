import { type Lane, MESSAGE_PUBLISH_TOPIC, type MessagePublishEvent, OUTBOX_CHANNEL } from '@fairlane/core'
import { and, asc, inArray, isNotNull, isNull, lte, notInArray, sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../client'
import { messageEvents, outbox } from '../schema'

export interface OutboxEntry {
  id: number
  tenantId: string | null
  topic: string
  payload: Record<string, unknown>
  attempts: number
}

/** A parked row that is due again: `parkedUntil` (ms since the epoch) is its place in its tenant's line. */
export interface ParkedOutboxEntry extends OutboxEntry {
  parkKey: string
  parkedUntilMs: number
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
  const conditions = [
    isNull(outbox.publishedAt),
    isNull(outbox.parkedUntil),
    inArray(outbox.topic, [...input.topics]),
  ]
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

/**
 * The relay's other claim: parked rows whose turn has come, in their tenants' order (`parked_until`
 * then id), locked like the unpublished claim. `skipKeys` leaves out tenants the relay already knows
 * cannot take more yet (lane slots full, next token later), so their rows are not even read.
 */
export async function claimDueParkedOutbox(
  tx: Transaction,
  input: { topics: readonly string[]; limit: number; skipKeys?: readonly string[] },
): Promise<ParkedOutboxEntry[]> {
  const conditions = [
    isNull(outbox.publishedAt),
    isNotNull(outbox.parkedUntil),
    lte(outbox.parkedUntil, sql`now()`),
    inArray(outbox.topic, [...input.topics]),
  ]
  if (input.skipKeys && input.skipKeys.length > 0) {
    conditions.push(notInArray(outbox.parkKey, [...input.skipKeys]))
  }
  const rows = await tx
    .select({
      id: outbox.id,
      tenantId: outbox.tenantId,
      topic: outbox.topic,
      payload: outbox.payload,
      attempts: outbox.attempts,
      parkKey: outbox.parkKey,
      parkedUntil: outbox.parkedUntil,
    })
    .from(outbox)
    .where(and(...conditions))
    .orderBy(asc(outbox.parkedUntil), asc(outbox.id))
    .limit(input.limit)
    .for('update', { skipLocked: true })
  return rows.map(({ parkKey, parkedUntil, ...row }) => ({
    ...row,
    parkKey: parkKey ?? '',
    parkedUntilMs: parkedUntil?.getTime() ?? 0,
  }))
}

/** An outbox row of a message, with the message it names (as the relay parsed its payload). */
export interface MessageOutboxRow {
  id: number
  tenantId: string
  messageId: string
}

/**
 * Parks rows (one statement for the batch): each stays unpublished with its tenant's key and the
 * moment (ms since the epoch, the Redis clock's) it may be claimed again. Each parked message gets
 * its `deferred` event (`{ untilMs }`) in the same statement: only fresh rows are parked, so once.
 */
export async function parkOutboxRows(
  tx: Transaction,
  rows: readonly (MessageOutboxRow & { parkKey: string; parkedUntilMs: number })[],
): Promise<void> {
  if (rows.length === 0) return
  const parked = JSON.stringify(
    rows.map((row) => ({
      id: row.id,
      tenant_id: row.tenantId,
      message_id: row.messageId,
      park_key: row.parkKey,
      until_ms: row.parkedUntilMs,
    })),
  )
  await tx.execute(sql`
    with parked as (
      update ${outbox} o
      set park_key = p.park_key, parked_until = to_timestamp(p.until_ms / 1000.0)
      from jsonb_to_recordset(${parked}::jsonb) as p(id bigint, tenant_id uuid, message_id uuid, park_key text, until_ms float8)
      where o.id = p.id
      returning p.id, p.tenant_id, p.message_id, p.until_ms
    )
    insert into ${messageEvents} (tenant_id, message_id, type, detail)
    select tenant_id, message_id, 'deferred', jsonb_build_object('untilMs', round(until_ms)::bigint)
    from parked order by id`)
}

/**
 * Milliseconds until the next parked row that is not due yet comes due; undefined with none. The
 * floor at zero is taken here, not with SQL's `greatest`, which ignores a NULL: with no parked row it
 * answered 0, and the relay, told a row was due, passed again every millisecond.
 */
export async function nextParkedDueInMs(db: Executor): Promise<number | undefined> {
  const [row] = await db.execute<{ in_ms: number | null }>(sql`
    select (extract(epoch from (min(parked_until) - now())) * 1000)::float8 as in_ms
    from ${outbox}
    where published_at is null and parked_until > now()`)
  return row?.in_ms === null || row?.in_ms === undefined ? undefined : Math.max(0, Number(row.in_ms))
}

/**
 * Marks the rows published and writes each message's `queued` event (`{ lane }`: a job exists now),
 * in one statement, inside the relay's transaction: rolled back together if the pass fails.
 */
export async function markOutboxPublished(
  tx: Transaction,
  rows: readonly (MessageOutboxRow & { lane: Lane })[],
): Promise<void> {
  if (rows.length === 0) return
  const published = JSON.stringify(
    rows.map((row) => ({ id: row.id, tenant_id: row.tenantId, message_id: row.messageId, lane: row.lane })),
  )
  await tx.execute(sql`
    with published as (
      update ${outbox} o set published_at = now()
      from jsonb_to_recordset(${published}::jsonb) as p(id bigint, tenant_id uuid, message_id uuid, lane text)
      where o.id = p.id
      returning p.id, p.tenant_id, p.message_id, p.lane
    )
    insert into ${messageEvents} (tenant_id, message_id, type, detail)
    select tenant_id, message_id, 'queued', jsonb_build_object('lane', lane)
    from published order by id`)
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
