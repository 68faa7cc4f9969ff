import type { Lane, MessageStatus } from '@fairlane/core'
import { and, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { messages } from '../schema'

export interface MessageSummary {
  id: string
  status: MessageStatus
  lane: Lane
  attempts: number
  lastError: string | null
  createdAt: Date
  sentAt: Date | null
  /** When the nightly cleanup cleared the body and variables (MESSAGE_BODY_RETENTION_DAYS); null: kept. */
  bodyRemovedAt: Date | null
}

/** One message of one tenant; another tenant's id reads as absent. */
export async function findMessage(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<MessageSummary | null> {
  const [row] = await db
    .select({
      id: messages.id,
      status: messages.status,
      lane: messages.lane,
      attempts: messages.attempts,
      lastError: messages.lastError,
      createdAt: messages.createdAt,
      sentAt: messages.sentAt,
      bodyRemovedAt: messages.bodyRemovedAt,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.id, query.messageId)))
  return row ?? null
}
