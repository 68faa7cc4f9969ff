import type { MessageRetentionStore, RetentionBatch, RetentionKey } from '@fairlane/core'
import { ROLLUP_CURSOR_NAME } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { readJobCursor } from './rollup'

/** The retention's store in PostgreSQL: each batch one statement, so one short transaction. */
export function createMessageRetentionStore(db: Database): MessageRetentionStore {
  return {
    readRollupCursor: () => readJobCursor(db, ROLLUP_CURSOR_NAME),
    deleteBatch: (batch) => deleteExpiredMessages(db, batch),
  }
}

/**
 * One batch of message retention. The next `limit` finished messages (the terminal statuses of the
 * partial `messages_retention_idx`, keyset after `after`) created before `createdBefore` are locked
 * (SKIP LOCKED: a row a worker or the inbound server holds is left for the next night); of those,
 * the ones not in flight are deleted with their events, clicks and webhook deliveries (their
 * attempts cascade). In flight, so kept: an outcome at or after `finishedBefore` (its day is not in
 * the rollup yet), an unpublished outbox row naming it (the relay would publish a message that is
 * gone), a webhook delivery still pending (its retries run on). The outbox check reads only the
 * unpublished rows (by `published_at is null`), never the published week.
 *
 * Kept on purpose: suppressions and soft-bounce counts naming the message (no foreign key: an address
 * stays suppressed after the message that caused it is gone), the campaign, tracked links, and the
 * tenant's daily rollup rows. Published outbox rows go by their own week's retention.
 */
export async function deleteExpiredMessages(
  db: Executor,
  batch: RetentionBatch,
): Promise<{ scanned: number; deleted: number; last: RetentionKey | null }> {
  const after = batch.after
    ? sql`and (m.created_at, m.id) > (${batch.after.createdAt}::timestamptz, ${batch.after.id}::uuid)`
    : sql``
  const finishedBefore = sql`${batch.finishedBefore.toISOString()}::timestamptz`
  const [row] = await db.execute<{
    scanned: number
    deleted: number
    last_created_at: string | null
    last_id: string | null
  }>(sql`
    with candidates as materialized (
      select m.id, m.tenant_id, m.created_at,
        greatest(m.created_at, m.sent_at, m.failed_at, m.updated_at) as finished_at
      from messages m
      where m.status in ('sent', 'failed', 'suppressed', 'cancelled', 'bounced', 'complained')
        and m.created_at < ${batch.createdBefore.toISOString()}::timestamptz
        ${after}
      order by m.created_at, m.id
      limit ${batch.limit}
      for update of m skip locked
    ),
    open_outbox as materialized (
      select (o.payload ->> 'messageId')::uuid as message_id
      from outbox o
      where o.published_at is null and o.topic = 'message.publish'
    ),
    doomed as materialized (
      select c.id, c.tenant_id from candidates c
      where c.finished_at < ${finishedBefore}
        and not exists (select 1 from open_outbox o where o.message_id = c.id)
        and not exists (
          select 1 from webhook_deliveries w where w.message_id = c.id and w.status = 'pending')
    ),
    events as (
      delete from message_events e using doomed d
      where e.tenant_id = d.tenant_id and e.message_id = d.id
    ),
    clicks as (
      delete from link_clicks l using doomed d where l.message_id = d.id
    ),
    deliveries as (
      delete from webhook_deliveries w using doomed d where w.message_id = d.id
    ),
    deleted as (
      delete from messages m using doomed d where m.id = d.id returning m.id
    ),
    last as (
      select created_at::text as created_at, id from candidates order by created_at desc, id desc limit 1
    )
    select (select count(*) from candidates)::int as scanned,
      (select count(*) from deleted)::int as deleted,
      (select created_at from last) as last_created_at,
      (select id from last) as last_id
  `)
  if (!row) throw new Error('message retention: the batch statement returned no row')
  return {
    scanned: row.scanned,
    deleted: row.deleted,
    last: row.last_created_at && row.last_id ? { createdAt: row.last_created_at, id: row.last_id } : null,
  }
}
