import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/**
 * The nightly cleanup's deletes. Each statement touches at most `limit` rows, picked by an index, so
 * it holds its row locks for milliseconds and never blocks the relay or a send for long; the caller
 * loops until a batch comes back short. Each returns how many rows it changed.
 */

export interface CleanupBatch {
  before: Date
  limit: number
}

/** Published outbox rows older than `before`; unpublished rows are never touched, however old. */
export async function deletePublishedOutbox(db: Executor, batch: CleanupBatch): Promise<number> {
  const rows = await db.execute(sql`
    delete from outbox
    where id in (
      select id from outbox
      where published_at is not null and published_at < ${batch.before.toISOString()}::timestamptz
      order by published_at
      limit ${batch.limit}
    )
    returning id
  `)
  return rows.length
}

/**
 * Forgets the idempotency keys of messages created before `before` (now − the key's 24 h window):
 * the message stays, only the key is cleared, so the unique (tenant_id, idempotency_key) constraint
 * no longer holds the key and a client may use it again. The accept path does the same for one key
 * on demand; this keeps the index small and the table free of stale keys. `updated_at` is left as
 * it is: the daily rollup dates a suppression by it.
 */
export async function releaseExpiredIdempotencyKeys(db: Executor, batch: CleanupBatch): Promise<number> {
  const rows = await db.execute(sql`
    update messages set idempotency_key = null
    where id in (
      select id from messages
      where idempotency_key is not null and created_at < ${batch.before.toISOString()}::timestamptz
      limit ${batch.limit}
      for update skip locked
    )
    returning id
  `)
  return rows.length
}

/** Admin audit entries older than `before` (now − AUDIT_RETENTION_DAYS). */
export async function deleteAuditEntriesBefore(db: Executor, batch: CleanupBatch): Promise<number> {
  const rows = await db.execute(sql`
    delete from admin_audit_log
    where id in (
      select id from admin_audit_log
      where created_at < ${batch.before.toISOString()}::timestamptz
      order by created_at
      limit ${batch.limit}
    )
    returning id
  `)
  return rows.length
}

/**
 * Tenant audit entries (every tenant's) older than `before` (now − AUDIT_RETENTION_DAYS), oldest
 * first by the created_at index.
 */
export async function deleteTenantAuditEntriesBefore(db: Executor, batch: CleanupBatch): Promise<number> {
  const rows = await db.execute(sql`
    delete from tenant_audit_log
    where id in (
      select id from tenant_audit_log
      where created_at < ${batch.before.toISOString()}::timestamptz
      order by created_at
      limit ${batch.limit}
    )
    returning id
  `)
  return rows.length
}

/**
 * Clears the body of messages on `lanes` created before `before`: `html`, `text` and `variables`
 * (login codes, reset links, whatever a template was filled with), the submitted MIME
 * (`message_contents`) and the attachments, and marks `body_removed_at`.
 * Only messages that are done: one still pending, queued, sending or held needs its body to be sent.
 * Recipient, subject, status, times and events stay. `updated_at` is left alone, as above.
 */
export async function clearMessageBodies(
  db: Executor,
  batch: CleanupBatch & { lanes: readonly string[]; now: Date },
): Promise<number> {
  const lanes = sql.join(
    batch.lanes.map((lane) => sql`${lane}`),
    sql`, `,
  )
  // The submitted MIME (SMTP) and the attachments are body too: deleted in the same statement.
  const rows = await db.execute(sql`
    with cleared as (
      update messages set html = null, text = null, variables = null,
        body_removed_at = ${batch.now.toISOString()}::timestamptz
      where id in (
        select id from messages
        where body_removed_at is null and lane in (${lanes})
          and created_at < ${batch.before.toISOString()}::timestamptz
          and status not in ('pending', 'scheduled', 'queued', 'sending', 'held')
        order by lane, created_at
        limit ${batch.limit}
        for update skip locked
      )
      returning id, tenant_id
    ),
    contents as (
      delete from message_contents c using cleared
      where c.tenant_id = cleared.tenant_id and c.message_id = cleared.id
    ),
    attachments as (
      delete from message_attachments a using cleared
      where a.tenant_id = cleared.tenant_id and a.message_id = cleared.id
    )
    select id from cleared
  `)
  return rows.length
}
