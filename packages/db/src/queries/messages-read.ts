import type { Lane, MessageStatus } from '@fairlane/core'
import type { DeliveryErrorCode } from '@fairlane/core/delivery'
import { and, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { messages } from '../schema'

export interface MessageSummary {
  id: string
  status: MessageStatus
  lane: Lane
  attempts: number
  /** The classified reason of the last failure (tenants never see the raw reply, which can name relays). */
  lastErrorCode: DeliveryErrorCode | null
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
      lastErrorCode: messages.lastErrorCode,
      createdAt: messages.createdAt,
      sentAt: messages.sentAt,
      bodyRemovedAt: messages.bodyRemovedAt,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.id, query.messageId)))
  return row ?? null
}
