import { MESSAGE_PUBLISH_TOPIC, OUTBOX_CHANNEL } from '@fairlane/core'
import type {
  AcceptedMessage,
  NewSubmission,
  SubmissionDomains,
  SubmissionStore,
} from '@fairlane/core/accept'
import { and, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { messageContents, messageEvents, messages, outbox, sendingDomains } from '../schema'
import { findByIdempotencyKey } from './accept-message'
import { findSenderDomain } from './senders'
import { countAcceptedSql, lockQuotaUsage } from './usage'

/** `acceptSubmission`'s store in PostgreSQL. */
export function createSubmissionStore(db: Database): SubmissionStore {
  return {
    findByIdempotencyKey: (query): Promise<AcceptedMessage | null> => findByIdempotencyKey(db, query),
    insertSubmission: (submission, admitQuota) =>
      admitQuota === undefined
        ? insertSubmission(db, submission)
        : db.transaction(async (tx) => {
            admitQuota(await lockQuotaUsage(tx, { tenantId: submission.tenantId, now: submission.queuedAt }))
            return insertSubmission(tx, submission)
          }),
  }
}

export function createSubmissionDomains(db: Executor): SubmissionDomains {
  return {
    findDomain: (query) => findSenderDomain(db, query),
    hasVerifiedDomain: (query) => hasVerifiedDomain(db, query),
  }
}

export async function hasVerifiedDomain(db: Executor, query: { tenantId: string }): Promise<boolean> {
  const [row] = await db
    .select({ id: sendingDomains.id })
    .from(sendingDomains)
    .where(and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.status, 'verified')))
    .limit(1)
  return row !== undefined
}

/**
 * One statement, so one transaction and one round trip for every recipient: the message rows (ON
 * CONFLICT on the idempotency key leaves a taken key's row out), and only for the rows inserted their
 * `message_contents` (the raw message is sent once and copied per row by PostgreSQL), `accepted`
 * event and outbox row (the same event `insertQueuedMessage` writes for API mail), then the NOTIFY
 * that wakes the relay. The relay can never see an event without its message and its content.
 */
export async function insertSubmission(db: Executor, submission: NewSubmission): Promise<string[]> {
  const { tenantId, lane } = submission
  const recipients = JSON.stringify(
    submission.messages.map((message) => ({
      id: message.id,
      to_address: message.toAddress,
      idempotency_key: message.idempotencyKey,
    })),
  )
  const variables = submission.variables === null ? null : JSON.stringify(submission.variables)
  const rows = await db.execute<{ id: string }>(sql`
    with recipients as (
      select * from jsonb_to_recordset(${recipients}::jsonb)
        as r(id uuid, to_address text, idempotency_key text)
    ), inserted as (
      insert into ${messages} (id, tenant_id, lane, status, template, to_address, from_address,
        sending_domain_id, subject, html, text, variables, idempotency_key, request_hash, queued_at,
        source, size_bytes)
      select r.id, ${tenantId}, ${lane}, 'queued', null, r.to_address, ${submission.fromAddress},
        ${submission.sendingDomainId}::uuid, ${submission.subject}, null, null, ${variables}::jsonb,
        r.idempotency_key, ${submission.requestHash}, ${submission.queuedAt.toISOString()}::timestamptz,
        'smtp', ${submission.sizeBytes}
      from recipients r
      on conflict (tenant_id, idempotency_key) do nothing
      returning id
    ), contents as (
      insert into ${messageContents} (message_id, tenant_id, raw)
      select id, ${tenantId}, ${submission.raw} from inserted
    ), accepted as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select ${tenantId}, id, 'accepted', jsonb_build_object('lane', ${lane}::text) from inserted
    ), event as (
      insert into ${outbox} (tenant_id, topic, payload)
      select ${tenantId}, ${MESSAGE_PUBLISH_TOPIC},
        jsonb_build_object('v', 1, 'messageId', id, 'tenantId', ${tenantId}::uuid, 'lane', ${lane}::text, 'generation', 0)
      from inserted
    ), usage as (${countAcceptedSql({
      tenantId,
      at: submission.queuedAt,
      lane,
      bytes: submission.sizeBytes,
      from: sql`inserted`,
    })})
    select id, pg_notify(${OUTBOX_CHANNEL}, '') from inserted`)
  return rows.map((row) => row.id)
}
