import type { Lane, MessageStatus } from '@fairlane/core'
import { and, eq, inArray } from 'drizzle-orm'
import type { Executor } from '../client'
import { campaigns, messages, tenants } from '../schema'
import { visibleAttempts, visibleStatus } from './message-claims'

/**
 * What the admin console shows of one message: where it was going, how it went, whose it is. The
 * body and the variables' values stay out (a one-time code is a secret even to an admin); the
 * variables' names say enough about what was rendered.
 */
export interface AdminMessageDetail {
  id: string
  tenantId: string
  tenantName: string
  campaignId: string | null
  campaignName: string | null
  lane: Lane
  status: MessageStatus
  template: string | null
  toAddress: string
  subject: string | null
  variableNames: string[]
  attempts: number
  generation: number
  /** The raw reason (an SMTP reply, relay names included): admins only. */
  lastError: string | null
  /** What the tenant is told instead. */
  lastErrorCode: string | null
  createdAt: Date
  queuedAt: Date | null
  sentAt: Date | null
  failedAt: Date | null
}

/** A message of any tenant, for the platform admin (who sees every tenant); null when it is gone. */
export async function findMessageForAdmin(
  db: Executor,
  query: { messageId: string },
): Promise<AdminMessageDetail | null> {
  const [row] = await db
    .select({
      id: messages.id,
      tenantId: messages.tenantId,
      tenantName: tenants.name,
      campaignId: messages.campaignId,
      campaignName: campaigns.name,
      lane: messages.lane,
      status: visibleStatus(),
      template: messages.template,
      toAddress: messages.toAddress,
      subject: messages.subject,
      variables: messages.variables,
      attempts: visibleAttempts(),
      generation: messages.generation,
      lastError: messages.lastError,
      lastErrorCode: messages.lastErrorCode,
      createdAt: messages.createdAt,
      queuedAt: messages.queuedAt,
      sentAt: messages.sentAt,
      failedAt: messages.failedAt,
    })
    .from(messages)
    .innerJoin(tenants, eq(tenants.id, messages.tenantId))
    .leftJoin(campaigns, eq(campaigns.id, messages.campaignId))
    .where(eq(messages.id, query.messageId))
  if (!row) return null
  const { variables, ...rest } = row
  return { ...rest, variableNames: Object.keys(variables ?? {}).sort() }
}

/** A message's lane and status, read inside a replay's transaction before anything is changed. */
export async function findMessageLaneAndStatus(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<{ lane: Lane; status: MessageStatus } | null> {
  const [row] = await db
    .select({ lane: messages.lane, status: visibleStatus() })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), eq(messages.id, query.messageId)))
  return row ?? null
}

/** Status of each of these messages (any tenant), for the console's list of recent actions. */
export async function messageStatuses(
  db: Executor,
  query: { messageIds: string[] },
): Promise<Map<string, MessageStatus>> {
  if (query.messageIds.length === 0) return new Map()
  const rows = await db
    .select({ id: messages.id, status: visibleStatus() })
    .from(messages)
    .where(inArray(messages.id, query.messageIds))
  return new Map(rows.map((row) => [row.id, row.status]))
}

/** Tenant names by id, for labelling dead letters and chart series. */
export async function tenantNames(
  db: Executor,
  query: { tenantIds: string[] },
): Promise<Map<string, string>> {
  if (query.tenantIds.length === 0) return new Map()
  const rows = await db
    .select({ id: tenants.id, name: tenants.name })
    .from(tenants)
    .where(inArray(tenants.id, query.tenantIds))
  return new Map(rows.map((row) => [row.id, row.name]))
}
