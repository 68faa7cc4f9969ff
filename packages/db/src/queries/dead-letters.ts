import type { Lane, MessageStatus } from '@fairlane/core'
import { and, eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messages } from '../schema'

export type RequeueOutcome =
  | { kind: 'requeued'; lane: Lane; generation: number }
  | { kind: 'not-failed'; status: MessageStatus }
  | { kind: 'not-found' }

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
      lockToken: null,
      lockedUntil: null,
      generation: sql`${messages.generation} + 1`,
      updatedAt: input.now,
    })
    .where(
      and(
        eq(messages.tenantId, input.tenantId),
        eq(messages.id, input.messageId),
        eq(messages.status, 'failed'),
      ),
    )
    .returning({ lane: messages.lane, generation: messages.generation })
  if (row) return { kind: 'requeued', ...row }
  const [current] = await db
    .select({ status: messages.status })
    .from(messages)
    .where(and(eq(messages.tenantId, input.tenantId), eq(messages.id, input.messageId)))
  return current ? { kind: 'not-failed', status: current.status } : { kind: 'not-found' }
}
