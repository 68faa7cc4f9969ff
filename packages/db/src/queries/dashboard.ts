import type { CampaignStatus, Lane, MessageStatus } from '@fairlane/core'
import { and, count, desc, eq, gte, inArray, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { apiKeys, campaigns, contacts, messages, sendingDomains } from '../schema'
import { visibleStatus } from './message-claims'

export interface Backlog {
  pending: number
  queued: number
}

export interface RecentCampaign {
  id: string
  name: string
  status: CampaignStatus
  sendAt: Date | null
  timeZone: string | null
}

export interface RecentMessage {
  id: string
  toAddress: string
  template: string | null
  lane: Lane
  status: MessageStatus
  createdAt: Date
}

/** Messages of the tenant delivered since `since` (the caller picks the day boundary and zone). */
export async function countSentSince(
  db: Executor,
  query: { tenantId: string; since: Date },
): Promise<number> {
  const [row] = await db
    .select({ value: count() })
    .from(messages)
    .where(
      and(
        eq(messages.tenantId, query.tenantId),
        eq(messages.status, 'sent'),
        gte(messages.sentAt, query.since),
      ),
    )
  return row?.value ?? 0
}

/** What is waiting: `pending` rows (campaign backlog in PostgreSQL) and `queued` ones (jobs in Redis). */
export async function countBacklog(db: Executor, query: { tenantId: string }): Promise<Backlog> {
  const rows = await db
    // As readers see them: a released bulk row (the table keeps it pending) is queued, a claimed one sending.
    .select({ status: visibleStatus(), value: count() })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), inArray(messages.status, ['pending', 'queued'])))
    .groupBy(sql`1`)
  const backlog: Backlog = { pending: 0, queued: 0 }
  for (const row of rows) {
    // A message being sent is still in Redis's hands, as before claims were shown.
    const status = row.status === 'sending' ? 'queued' : row.status
    if (status === 'pending' || status === 'queued') backlog[status] += row.value
  }
  return backlog
}

export async function listRecentCampaigns(
  db: Executor,
  query: { tenantId: string; limit: number },
): Promise<RecentCampaign[]> {
  return db
    .select({
      id: campaigns.id,
      name: campaigns.name,
      status: campaigns.status,
      sendAt: campaigns.sendAt,
      timeZone: campaigns.timeZone,
    })
    .from(campaigns)
    .where(eq(campaigns.tenantId, query.tenantId))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(query.limit)
}

/** The latest API (transactional) messages; campaign deliveries are counted on their campaign instead. */
export async function listRecentMessages(
  db: Executor,
  query: { tenantId: string; limit: number },
): Promise<RecentMessage[]> {
  return db
    .select({
      id: messages.id,
      toAddress: messages.toAddress,
      template: messages.template,
      lane: messages.lane,
      status: messages.status,
      createdAt: messages.createdAt,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), isNull(messages.campaignId)))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(query.limit)
}

export interface OnboardingProgress {
  hasContacts: boolean
  hasCampaign: boolean
  hasApiKey: boolean
  hasVerifiedDomain: boolean
}

/** What a new tenant has done so far, for the dashboard's first-steps checklist: four index probes, one round trip. */
export async function onboardingProgress(
  db: Executor,
  query: { tenantId: string },
): Promise<OnboardingProgress> {
  const tenantId = query.tenantId
  const [row] = await db.execute<{
    has_contacts: boolean
    has_campaign: boolean
    has_api_key: boolean
    has_verified_domain: boolean
  }>(sql`
    select
      exists (select 1 from ${contacts} where ${contacts.tenantId} = ${tenantId}) as has_contacts,
      exists (select 1 from ${campaigns} where ${campaigns.tenantId} = ${tenantId}) as has_campaign,
      exists (select 1 from ${apiKeys} where ${apiKeys.tenantId} = ${tenantId} and ${apiKeys.revokedAt} is null) as has_api_key,
      exists (select 1 from ${sendingDomains} where ${sendingDomains.tenantId} = ${tenantId} and ${sendingDomains.status} = 'verified') as has_verified_domain`)
  return {
    hasContacts: row?.has_contacts === true,
    hasCampaign: row?.has_campaign === true,
    hasApiKey: row?.has_api_key === true,
    hasVerifiedDomain: row?.has_verified_domain === true,
  }
}
