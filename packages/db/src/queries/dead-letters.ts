import type { Lane } from '@fairlane/core'
import type {
  DeadLetterStore,
  DeadLetterTransaction,
  FailedMessage,
  FailedMessageStore,
  RequeueOutcome,
} from '@fairlane/core/dead-letters'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database, Executor, Transaction } from '../client'
import { messages } from '../schema'
import { insertPublishEvent, notifyOutbox } from './accept-message'
import { findMessageLaneAndStatus } from './admin-messages'
import { insertAuditEntry } from './audit-log'

/** `replayDeadLetter`'s and `discardDeadLetter`'s store in PostgreSQL. */
export function createDeadLetterStore(db: Database): DeadLetterStore {
  return { transaction: (work) => db.transaction((tx) => work(deadLetterTransaction(tx))) }
}

function deadLetterTransaction(tx: Transaction): DeadLetterTransaction {
  return {
    findMessageLane: async (query) => (await findMessageLaneAndStatus(tx, query))?.lane ?? null,
    requeueFailed: (input) => requeueFailedMessage(tx, input),
    async publish(event) {
      await insertPublishEvent(tx, event)
      await notifyOutbox(tx)
    },
    async audit(entry) {
      await insertAuditEntry(tx, entry)
    },
  }
}

/**
 * Puts a failed message back to `queued` with the next generation (so the relay's job id is new and
 * not swallowed by the dead job still retained under the old id). `WHERE status = 'failed'` makes a
 * second, concurrent replay find nothing to change: one replay, one publish. The last error and
 * failed_at stay as history until the next attempt overwrites them. Call inside the transaction that writes the outbox row and the audit entry.
 */
export async function requeueFailedMessage(
  db: Executor,
  input: { tenantId: string; messageId: string; now: Date },
): Promise<RequeueOutcome> {
  const [row] = await db
    .update(messages)
    .set({
      status: 'queued',
      queuedAt: input.now,
      generation: sql`${messages.generation} + 1`,
      updatedAt: input.now,
    })
    .where(
      and(
        eq(messages.tenantId, input.tenantId),
        eq(messages.id, input.messageId),
        eq(messages.status, 'failed'),
        isNull(messages.bodyRemovedAt),
      ),
    )
    .returning({ lane: messages.lane, generation: messages.generation })
  if (row) return { kind: 'requeued', ...row }
  const [current] = await db
    .select({ status: messages.status, bodyRemovedAt: messages.bodyRemovedAt })
    .from(messages)
    .where(and(eq(messages.tenantId, input.tenantId), eq(messages.id, input.messageId)))
  if (!current) return { kind: 'not-found' }
  if (current.status === 'failed' && current.bodyRemovedAt) {
    return { kind: 'body-removed', removedAt: current.bodyRemovedAt }
  }
  return { kind: 'not-failed', status: current.status }
}

/** `restoreDeadLetters`'s record of failures in PostgreSQL. */
export function createFailedMessageStore(db: Executor): FailedMessageStore {
  return {
    findRestorable: (input) => findRestorableDeadLetters(db, input),
    newestRestorableSince: (input) => newestRestorableSince(db, input),
  }
}

/** A failed message that should have a dead letter: not discarded by an admin since it failed. */
const notDiscarded = sql`not exists (
  select 1 from admin_audit_log a
  where a.target_type = 'message' and a.target_id = m.id::text
    and a.action = 'dlq.discard' and a.created_at >= m.failed_at)`

/**
 * Failed messages since `failedSince` that should have a dead letter: not discarded by an admin
 * since they failed (the discard's audit entry), in id order from `afterId` (keyset pages). A
 * replayed message is not `failed` any more, or failed again later with a generation of its own.
 */
export async function findRestorableDeadLetters(
  db: Executor,
  input: { failedSince: Date; afterId?: string; limit: number },
): Promise<FailedMessage[]> {
  const after = input.afterId ? sql`and m.id > ${input.afterId}` : sql``
  const rows = await db.execute<{
    id: string
    tenant_id: string
    lane: Lane
    generation: number
    attempts: number
    last_error: string | null
    failed_at: Date | string
  }>(sql`
    select m.id, m.tenant_id, m.lane, m.generation, m.attempts, m.last_error, m.failed_at
    from messages m
    where m.status = 'failed' and m.failed_at >= ${input.failedSince.toISOString()}::timestamptz ${after}
      and ${notDiscarded}
    order by m.id
    limit ${input.limit}`)
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    lane: row.lane,
    generation: Number(row.generation),
    attempts: Number(row.attempts),
    lastError: row.last_error,
    failedAt: new Date(row.failed_at),
  }))
}

/**
 * When more than `keep` failed messages since `failedSince` should have a dead letter: the failure
 * time of the `keep`-th newest, so a restore adds only the newest `keep` (DEAD_LETTER_MAX_COUNT) and
 * never what the cap would trim at once. Undefined when there are no more than `keep`.
 */
export async function newestRestorableSince(
  db: Executor,
  input: { failedSince: Date; keep: number },
): Promise<Date | undefined> {
  const rows = await db.execute<{ failed_at: Date | string }>(sql`
    select m.failed_at from messages m
    where m.status = 'failed' and m.failed_at >= ${input.failedSince.toISOString()}::timestamptz
      and ${notDiscarded}
    order by m.failed_at desc
    offset ${input.keep - 1} limit 2`)
  // A `keep`-th row and one after it: more than `keep` exist.
  return rows.length === 2 && rows[0] ? new Date(rows[0].failed_at) : undefined
}
