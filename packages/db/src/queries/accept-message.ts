import { MESSAGE_PUBLISH_TOPIC, type MessagePublishEvent, OUTBOX_CHANNEL } from '@fairlane/core'
import type { AcceptedMessage, AcceptStore, AcceptTransaction, NewQueuedMessage } from '@fairlane/core/accept'
import { and, eq, lt, type SQL, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { messageAttachments, messageEvents, messages, outbox } from '../schema'
import { countAcceptedSql, lockQuotaUsage } from './usage'

/**
 * `acceptMessage`'s store in PostgreSQL. The message row and its outbox row are written by one
 * statement (so the relay can never see an event without its message, nor a message without its
 * event), which also NOTIFYs the relay; within a transaction the notification waits for COMMIT.
 */
export function createAcceptStore(db: Database): AcceptStore {
  return {
    findByIdempotencyKey: (query) => findByIdempotencyKey(db, query),
    insertQueuedMessage: (message, event) => insertQueuedMessage(db, message, event),
    transaction: (work) => db.transaction((tx) => work(acceptTransaction(tx))),
  }
}

function acceptTransaction(tx: Executor): AcceptTransaction {
  return {
    findByIdempotencyKey: (query) => findByIdempotencyKey(tx, query),
    insertQueuedMessage: (message, event) => insertQueuedMessage(tx, message, event),
    releaseIdempotencyKey: (query) => releaseIdempotencyKey(tx, query),
    lockQuotaUsage: (query) => lockQuotaUsage(tx, query),
  }
}

export async function findByIdempotencyKey(
  db: Executor,
  query: { tenantId: string; idempotencyKey: string },
): Promise<AcceptedMessage | null> {
  const [row] = await db
    .select({
      id: messages.id,
      lane: messages.lane,
      requestHash: messages.requestHash,
      createdAt: messages.createdAt,
      sendAt: messages.sendAt,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.idempotencyKey, query.idempotencyKey)))
  return row ?? null
}

export async function releaseIdempotencyKey(
  db: Executor,
  query: { tenantId: string; idempotencyKey: string; createdBefore: Date },
): Promise<void> {
  await db
    .update(messages)
    .set({ idempotencyKey: null, updatedAt: new Date() })
    .where(
      and(
        eq(messages.tenantId, query.tenantId),
        eq(messages.idempotencyKey, query.idempotencyKey),
        lt(messages.createdAt, query.createdBefore),
      ),
    )
}

/**
 * One round trip on the hot path: the message insert, its `accepted` event, the outbox insert and the
 * day's usage (all three only when the message was inserted, so a replay counts nothing) and the
 * NOTIFY in one statement. ON CONFLICT DO NOTHING on (tenant_id, idempotency_key)
 * rather than catching 23505: the loser of a race waits for the winner's commit, gets no row back,
 * and its transaction stays usable, so it reads the winner at once instead of rolling back.
 */
export async function insertQueuedMessage(
  db: Executor,
  message: NewQueuedMessage,
  event: MessagePublishEvent,
): Promise<boolean> {
  if (event.messageId !== message.id || event.tenantId !== message.tenantId) {
    throw new Error('the outbox event must describe the message it is written with')
  }
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value))
  // A scheduled message gets its `scheduled` event and no outbox row: the releaser writes that when it is due.
  const sendAt = message.sendAt ? message.sendAt.toISOString() : null
  const rows = await db.execute<{ id: string }>(sql`
    with inserted as (
      insert into ${messages} (id, tenant_id, lane, status, template, template_version, to_address,
        from_address, reply_to, sending_domain_id,
        subject, html, text, variables, idempotency_key, request_hash, queued_at, track_opens, track_clicks,
        send_at, source, size_bytes)
      values (${message.id}, ${message.tenantId}, ${message.lane},
        case when ${sendAt}::timestamptz is null then 'queued' else 'scheduled' end, ${message.template},
        ${message.templateVersion ?? null}, ${message.toAddress},
        ${message.fromAddress ?? null}, ${message.replyTo ?? null}, ${message.sendingDomainId ?? null}::uuid,
        ${message.subject}, ${message.html}, ${message.text},
        ${json(message.variables)}::jsonb, ${message.idempotencyKey}, ${message.requestHash},
        ${message.queuedAt.toISOString()}::timestamptz, ${message.trackOpens === true}, ${message.trackClicks === true},
        ${sendAt}::timestamptz, ${message.source ?? null}, ${message.sizeBytes ?? null}::int)
      on conflict (tenant_id, idempotency_key) do nothing
      returning id
    ), accepted as (
      -- One insert, ordered, so the timeline reads accepted before scheduled (two CTEs run in no set order).
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select ${message.tenantId}, id, type, detail from (
        select 1 as n, id, 'accepted' as type, ${json({ lane: message.lane })}::jsonb as detail from inserted
        union all
        select 2, id, 'scheduled', jsonb_build_object('sendAt', ${sendAt}::text) from inserted
        where ${sendAt}::timestamptz is not null
      ) events order by n
    ), event as (
      insert into ${outbox} (tenant_id, topic, payload)
      select ${message.tenantId}, ${MESSAGE_PUBLISH_TOPIC}, ${json(event)}::jsonb from inserted
      where ${sendAt}::timestamptz is null
    )
    , usage as (${countAcceptedSql({
      tenantId: message.tenantId,
      at: message.queuedAt,
      lane: message.lane,
      bytes: message.sizeBytes ?? 0,
      from: sql`inserted`,
    })})${attachmentsInsert(message)}
    select id, pg_notify(${OUTBOX_CHANNEL}, '') from inserted`)
  return rows.length > 0
}

/**
 * The message's attachments, as one more part of the insert's statement (only when it has any): they
 * exist exactly when the message does, and a lost idempotency race writes none.
 */
function attachmentsInsert(message: NewQueuedMessage): SQL {
  const attachments = message.attachments ?? []
  if (attachments.length === 0) return sql``
  const rows = attachments.map(
    (attachment, position) =>
      sql`(${position}::int, ${attachment.filename}::text, ${attachment.contentType}::text,
        ${attachment.contentId}::text, ${attachment.content.byteLength}::int, ${asBuffer(attachment.content)}::bytea)`,
  )
  return sql`, attached as (
      insert into ${messageAttachments} (message_id, tenant_id, position, filename, content_type, content_id,
        size_bytes, content)
      select inserted.id, ${message.tenantId}, a.position, a.filename, a.content_type, a.content_id,
        a.size_bytes, a.content
      from inserted, (values ${sql.join(rows, sql`, `)})
        as a(position, filename, content_type, content_id, size_bytes, content)
    )`
}

/** The driver sends a Buffer as bytea; a plain Uint8Array is viewed as one, not copied. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** An outbox row asking the relay to put a message on its lane again (admin replay). */
export async function insertPublishEvent(db: Executor, event: MessagePublishEvent): Promise<void> {
  await db
    .insert(outbox)
    .values({ tenantId: event.tenantId, topic: MESSAGE_PUBLISH_TOPIC, payload: { ...event } })
}

/** Inside a transaction, PostgreSQL holds the notification until COMMIT and drops it on ROLLBACK. */
export async function notifyOutbox(db: Executor): Promise<void> {
  await db.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, '')`)
}
