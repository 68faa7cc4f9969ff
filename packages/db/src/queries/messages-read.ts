import type { Lane, MessageStatus } from '@fairlane/core'
import type { DeliveryErrorCode } from '@fairlane/core/delivery'
import { and, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { campaigns, messages } from '../schema'
import { visibleAttempts, visibleStatus } from './message-claims'

export interface MessageSummary {
  id: string
  status: MessageStatus
  lane: Lane
  attempts: number
  /** The classified reason of the last failure (tenants never see the raw reply, which can name relays). */
  lastErrorCode: DeliveryErrorCode | null
  createdAt: Date
  sentAt: Date | null
  /** A scheduled send's time (`sendAt`); null: sent when accepted. */
  sendAt: Date | null
  /** When the nightly cleanup cleared the body and variables (MESSAGE_BODY_RETENTION_DAYS); null: kept. */
  bodyRemovedAt: Date | null
}

/** The columns of a `MessageSummary`, which the detail reads too. */
const summaryColumns = {
  id: messages.id,
  status: visibleStatus(),
  lane: messages.lane,
  attempts: visibleAttempts(),
  lastErrorCode: messages.lastErrorCode,
  createdAt: messages.createdAt,
  sentAt: messages.sentAt,
  sendAt: messages.sendAt,
  bodyRemovedAt: messages.bodyRemovedAt,
}

/** One message of one tenant; another tenant's id reads as absent. */
export async function findMessage(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<MessageSummary | null> {
  const [row] = await db
    .select(summaryColumns)
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.id, query.messageId)))
  return row ?? null
}

export interface MessageDetail extends MessageSummary {
  toAddress: string
  subject: string | null
  template: string | null
  templateVersion: number | null
  campaignId: string | null
  campaignName: string | null
  queuedAt: Date | null
  failedAt: Date | null
  /** The rendered content while it is kept; null once the retention cleared it (or a part was never there). */
  html: string | null
  text: string | null
}

/** Everything the tenant's message page shows; another tenant's id reads as absent. Never the raw SMTP reply. */
export async function findMessageDetail(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<MessageDetail | null> {
  const [row] = await db
    .select({
      ...summaryColumns,
      toAddress: messages.toAddress,
      subject: messages.subject,
      template: messages.template,
      templateVersion: messages.templateVersion,
      campaignId: messages.campaignId,
      campaignName: campaigns.name,
      queuedAt: messages.queuedAt,
      failedAt: messages.failedAt,
      html: messages.html,
      text: messages.text,
    })
    .from(messages)
    .leftJoin(campaigns, eq(campaigns.id, messages.campaignId))
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.id, query.messageId)))
  return row ?? null
}
