import type { Lane, MessageListStore, MessageStatus } from '@fairlane/core'
import type { DeliveryErrorCode } from '@fairlane/core/delivery'
import { and, desc, eq, gte, ilike, isNull, lt, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messages } from '../schema'
import { hasVisibleStatus, visibleAttempts, visibleStatus } from './message-claims'

export interface MessageLogFilter {
  tenantId: string
  status?: MessageStatus | undefined
  lane?: Lane | undefined
  /** One campaign's deliveries (its per-recipient table); without it, API mail only (see `allMail`). */
  campaignId?: string | undefined
  /** Without `campaignId`: every message of the tenant, API and campaign mail (`GET /api/v1/messages`). */
  allMail?: boolean | undefined
  /** The recipient's whole address, case-blind. */
  to?: string | undefined
  /** Created at or after / before. */
  from?: Date | undefined
  until?: Date | undefined
  /** Part of the recipient address, matched case-blind. */
  recipient?: string | undefined
  /** The id of the last row of the previous page (keyset paging, newest first). */
  after?: string | undefined
  limit: number
}

export interface MessageLogEntry {
  id: string
  toAddress: string
  template: string | null
  subject: string | null
  lane: Lane
  status: MessageStatus
  attempts: number
  /** The classified reason of the last failure (tenants never see the raw reply, which can name relays). */
  lastErrorCode: DeliveryErrorCode | null
  createdAt: Date
  sentAt: Date | null
  campaignId: string | null
  /** A scheduled send's time. */
  sendAt: Date | null
  /** When the nightly cleanup cleared the body and variables; null: kept. */
  bodyRemovedAt: Date | null
}

/** `%` and `_` typed by the user are literal characters, not patterns. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * One page of the tenant's transactional log (API mail, not campaign deliveries), or of one campaign's
 * deliveries (`campaignId`), newest first.
 * The cursor is a message id; its (created_at, id) is read in SQL rather than carried through the
 * URL because JavaScript dates drop the microseconds PostgreSQL stores, which would skip or repeat
 * rows at a page boundary. A cursor of another tenant matches nothing, so the page is empty.
 * Returns up to `limit + 1` rows; the caller shows `limit` and knows there is a next page.
 */
export async function listMessageLog(db: Executor, filter: MessageLogFilter): Promise<MessageLogEntry[]> {
  const conditions: SQL[] = [eq(messages.tenantId, filter.tenantId)]
  if (filter.campaignId) conditions.push(eq(messages.campaignId, filter.campaignId))
  else if (!filter.allMail) conditions.push(isNull(messages.campaignId))
  if (filter.status) conditions.push(hasVisibleStatus(filter.status) ?? sql`true`)
  if (filter.lane) conditions.push(eq(messages.lane, filter.lane))
  if (filter.to) conditions.push(sql`lower(${messages.toAddress}) = lower(${filter.to})`)
  if (filter.from) conditions.push(gte(messages.createdAt, filter.from))
  if (filter.until) conditions.push(lt(messages.createdAt, filter.until))
  if (filter.recipient) conditions.push(ilike(messages.toAddress, containsPattern(filter.recipient)))
  if (filter.after) {
    conditions.push(
      sql`(${messages.createdAt}, ${messages.id}) < (select c.created_at, c.id from messages c where c.id = ${filter.after}::uuid and c.tenant_id = ${filter.tenantId}::uuid)`,
    )
  }
  return db
    .select({
      id: messages.id,
      toAddress: messages.toAddress,
      template: messages.template,
      subject: messages.subject,
      lane: messages.lane,
      status: visibleStatus(),
      attempts: visibleAttempts(),
      lastErrorCode: messages.lastErrorCode,
      createdAt: messages.createdAt,
      sentAt: messages.sentAt,
      campaignId: messages.campaignId,
      sendAt: messages.sendAt,
      bodyRemovedAt: messages.bodyRemovedAt,
    })
    .from(messages)
    .where(and(...conditions))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(filter.limit + 1)
}

/**
 * The message list of core (`listMessages`, the API; `listMessagePage`, the app) on this query. Core asks
 * for `limit` rows at most and this query reads one more than it is given, hence the `- 1`.
 * Indexes: the tenant's time order and range is `messages_tenant_created_idx`; a campaign is
 * `messages_tenant_campaign_status_idx`; a status and a recipient filter the tenant's rows in time order.
 */
export function createMessageListStore(db: Executor): MessageListStore {
  return {
    list: (query) =>
      listMessageLog(db, {
        tenantId: query.tenantId,
        status: query.status,
        ...(query.campaignId ? { campaignId: query.campaignId } : {}),
        allMail: query.campaignId === undefined,
        to: query.to,
        recipient: query.recipientContains,
        from: query.from,
        until: query.until,
        after: query.after,
        limit: query.limit - 1,
      }),
  }
}
