import {
  CANCELLABLE_CAMPAIGN_STATUSES,
  type CampaignCancellation,
  type CampaignFields,
  type CampaignStatus,
  type CampaignStore,
  EDITABLE_CAMPAIGN_STATUSES,
  type MessageStatus,
} from '@fairlane/core'
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { retryOnDeadlock } from '../errors'
import { campaigns, lists, messageClaims, messages, segments } from '../schema'
import { audienceListExists, countAudience } from './audience'
import { claimed, visibleStatus } from './message-claims'
import { segmentExists } from './segments'

export interface CampaignView {
  id: string
  name: string
  subject: string
  html: string
  text: string | null
  listId: string | null
  listName: string | null
  segmentId: string | null
  /** The segment's name, also when it was deleted after the campaign was sent. */
  segmentName: string | null
  /** The saved From / Reply-To; null: the tenant's default at dispatch time. */
  fromAddress: string | null
  replyTo: string | null
  status: CampaignStatus
  sendAt: Date | null
  sendAtLocal: string | null
  timeZone: string | null
  recipientCount: number
  cancelledAt: Date | null
  trackOpens: boolean
  trackClicks: boolean
  createdAt: Date
  updatedAt: Date
}

/** Per message status; `sending` is reported with `queued` (in flight), as the API's counts have no such key. */
export interface CampaignCounts {
  pending: number
  queued: number
  sent: number
  failed: number
  suppressed: number
  /** Not sent because the campaign was cancelled first. */
  cancelled: number
  /** Sent, then bounced for good (a hard bounce heard by the inbound server). */
  bounced: number
  /** Sent, then reported as spam by its recipient. */
  complained: number
}

const columns = {
  id: campaigns.id,
  name: campaigns.name,
  subject: campaigns.subject,
  html: campaigns.html,
  text: campaigns.text,
  listId: campaigns.listId,
  listName: lists.name,
  segmentId: campaigns.segmentId,
  segmentName: segments.name,
  fromAddress: campaigns.fromAddress,
  replyTo: campaigns.replyTo,
  status: campaigns.status,
  sendAt: campaigns.sendAt,
  sendAtLocal: campaigns.sendAtLocal,
  timeZone: campaigns.timeZone,
  recipientCount: campaigns.recipientCount,
  cancelledAt: campaigns.cancelledAt,
  trackOpens: campaigns.trackOpens,
  trackClicks: campaigns.trackClicks,
  createdAt: campaigns.createdAt,
  updatedAt: campaigns.updatedAt,
}

export async function findCampaign(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<CampaignView | null> {
  const [row] = await db
    .select(columns)
    .from(campaigns)
    .leftJoin(lists, eq(lists.id, campaigns.listId))
    .leftJoin(segments, eq(segments.id, campaigns.segmentId))
    .where(and(eq(campaigns.tenantId, query.tenantId), eq(campaigns.id, query.campaignId)))
  return row ?? null
}

/** The tenant's campaigns, newest first. */
export async function listCampaigns(
  db: Executor,
  query: { tenantId: string; limit?: number },
): Promise<CampaignView[]> {
  return db
    .select(columns)
    .from(campaigns)
    .leftJoin(lists, eq(lists.id, campaigns.listId))
    .leftJoin(segments, eq(segments.id, campaigns.segmentId))
    .where(eq(campaigns.tenantId, query.tenantId))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(query.limit ?? 100)
}

/** Every status at zero: a campaign with no messages yet. */
export const emptyCampaignCounts = (): CampaignCounts => ({
  pending: 0,
  queued: 0,
  sent: 0,
  failed: 0,
  suppressed: 0,
  cancelled: 0,
  bounced: 0,
  complained: 0,
})

const bucket: Record<MessageStatus, keyof CampaignCounts> = {
  pending: 'pending',
  // Campaign mail is never scheduled one message at a time (the campaign has its time); counted as waiting.
  scheduled: 'pending',
  queued: 'queued',
  sending: 'queued',
  sent: 'sent',
  failed: 'failed',
  suppressed: 'suppressed',
  cancelled: 'cancelled',
  // Waiting for its sender domain to verify again: not sent, not lost.
  held: 'pending',
  bounced: 'bounced',
  complained: 'complained',
}

/** Message counts by status for each campaign id given (of this tenant); served by the tenant/campaign/status index. */
export async function campaignMessageCounts(
  db: Executor,
  query: { tenantId: string; campaignIds: string[] },
): Promise<Map<string, CampaignCounts>> {
  const result = new Map(query.campaignIds.map((id) => [id, emptyCampaignCounts()]))
  if (query.campaignIds.length === 0) return result
  const rows = await db
    // As readers see them: a released row (the table keeps it pending) counts as queued.
    .select({ campaignId: messages.campaignId, status: visibleStatus(), count: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.tenantId, query.tenantId), inArray(messages.campaignId, query.campaignIds)))
    .groupBy(sql`1, 2`)
  for (const row of rows) {
    const counts = row.campaignId === null ? undefined : result.get(row.campaignId)
    if (counts) counts[bucket[row.status]] += row.count
  }
  return result
}

/** The CampaignStore port of `@fairlane/core`'s campaign use cases, on this database. */
export function createCampaignStore(db: Executor): CampaignStore {
  const editable = [...EDITABLE_CAMPAIGN_STATUSES]
  return {
    listExists: (query) => audienceListExists(db, query),
    segmentExists: (query) => segmentExists(db, query),
    countAudience: (query) => countAudience(db, query),
    insertCampaign: (input) =>
      withSegmentHeld(db, input, async (tx) => {
        // A switch not given takes the tenant's default (its settings page), read in the insert itself.
        const tenantDefault = (column: 'track_opens' | 'track_clicks') =>
          sql<boolean>`(select t.${sql.raw(column)} from tenants t where t.id = ${input.tenantId}::uuid)`
        const [row] = await tx
          .insert(campaigns)
          .values({
            ...input,
            trackOpens: input.trackOpens ?? tenantDefault('track_opens'),
            trackClicks: input.trackClicks ?? tenantDefault('track_clicks'),
          })
          .returning({ id: campaigns.id })
        if (!row) throw new Error('insert into campaigns returned no row')
        return row
      }),
    updateEditableCampaign: ({ tenantId, campaignId, ...fields }) =>
      withSegmentHeld(db, { tenantId, segmentId: fields.segmentId }, async (tx) => {
        const rows = await tx
          .update(campaigns)
          .set({ ...withoutUndefined(fields satisfies CampaignFields), updatedAt: new Date() })
          .where(
            and(
              eq(campaigns.tenantId, tenantId),
              eq(campaigns.id, campaignId),
              inArray(campaigns.status, editable),
            ),
          )
          .returning({ id: campaigns.id })
        return rows.length > 0
      }),
    async findCampaignStatus(query) {
      const [row] = await db
        .select({ status: campaigns.status })
        .from(campaigns)
        .where(and(eq(campaigns.tenantId, query.tenantId), eq(campaigns.id, query.campaignId)))
      return row?.status ?? null
    },
    async findCampaignContent(query) {
      const [row] = await db
        .select({
          name: campaigns.name,
          subject: campaigns.subject,
          html: campaigns.html,
          text: campaigns.text,
          listId: campaigns.listId,
          segmentId: campaigns.segmentId,
          fromAddress: campaigns.fromAddress,
          replyTo: campaigns.replyTo,
          trackOpens: campaigns.trackOpens,
          trackClicks: campaigns.trackClicks,
        })
        .from(campaigns)
        .where(and(eq(campaigns.tenantId, query.tenantId), eq(campaigns.id, query.campaignId)))
      return row ?? null
    },
    cancelCampaign: (input) => cancelCampaign(db, input),
    countSentMessages: (query) => countSentMessages(db, query),
  }
}

/**
 * Runs the campaign write while holding its segment (FOR SHARE), so a segment deleted at the same
 * moment is either seen gone (`segment_gone`, nothing written) or waits until the campaign exists and
 * then refuses the delete because of it. Without a segment, the write runs as it is.
 */
async function withSegmentHeld<T>(
  db: Executor,
  input: { tenantId: string; segmentId: string | null },
  write: (tx: Executor) => Promise<T>,
): Promise<T | 'segment_gone'> {
  const { segmentId } = input
  if (segmentId === null) return write(db)
  return db.transaction(async (tx) => {
    if (!(await segmentExists(tx, { tenantId: input.tenantId, segmentId, lock: true }))) return 'segment_gone'
    return write(tx)
  })
}

/**
 * The campaign → `cancelled` while it is still cancellable, then its messages not yet claimed for
 * sending → `cancelled`, in one transaction. The campaign row goes first: its lock waits out a
 * dispatch batch in progress (which holds it) and keeps the next batch off (it skips locked rows and,
 * after the commit, cancelled campaigns), and the message update, a later statement, sees every row
 * that batch inserted. A message a worker claimed first is `sending` and finishes; a queued one's job
 * finds its row terminal and is skipped. Null when the status had moved on (sent, cancelled, gone).
 */
async function cancelCampaign(
  db: Executor,
  input: { tenantId: string; campaignId: string; now: Date },
): Promise<CampaignCancellation | null> {
  // It locks the campaign, then its messages. A transaction locking them the other way round (one of
  // its messages, then the campaign: none of Fairlane's today, an operator's SQL or a later path may)
  // makes a deadlock PostgreSQL breaks by aborting one side: if this side, it is run again, whole.
  return retryOnDeadlock(() => cancelCampaignOnce(db, input))
}

function cancelCampaignOnce(
  db: Executor,
  input: { tenantId: string; campaignId: string; now: Date },
): Promise<CampaignCancellation | null> {
  return db.transaction(async (tx) => {
    const [campaign] = await tx
      .update(campaigns)
      .set({ status: 'cancelled', cancelledAt: input.now, updatedAt: input.now })
      .where(
        and(
          eq(campaigns.tenantId, input.tenantId),
          eq(campaigns.id, input.campaignId),
          inArray(campaigns.status, [...CANCELLABLE_CAMPAIGN_STATUSES]),
        ),
      )
      .returning({ id: campaigns.id })
    if (!campaign) return null
    // Its open rows locked first: a claim being made (it locks its message's row until it commits)
    // is waited for, and the next statement, with a snapshot taken after, sees it and leaves that
    // message to its attempt. In one statement the claim's commit would be missed: waiting for a
    // row lock (not for an update) re-checks nothing.
    await tx.execute(sql`
      select count(*) from (
        select 1 from ${messages}
        where ${messages.tenantId} = ${input.tenantId}
          and ${messages.campaignId} = ${input.campaignId}
          and ${messages.status} in ('pending', 'queued', 'held')
        for no key update) locked`)
    // Counted in the statement: a large campaign holds back far too many rows to return their ids.
    const [held] = await tx.execute<{ count: number }>(sql`
      with held as (
        update ${messages} set status = 'cancelled', updated_at = ${input.now.toISOString()}::timestamptz
        where ${messages.tenantId} = ${input.tenantId}
          and ${messages.campaignId} = ${input.campaignId}
          and ${messages.status} in ('pending', 'queued', 'held')
          and not ${claimed()}
        returning ${messages.id}
      ), unreleased as (
        -- A cancelled message's release (its job will find it cancelled) ends with it.
        delete from ${messageClaims} c using held where c.message_id = held.id and c.lock_token is null
      )
      select count(*)::int as count from held`)
    return { sent: await countSentMessages(tx, input), cancelled: held?.count ?? 0 }
  })
}

async function countSentMessages(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(messages)
    .where(
      and(
        eq(messages.tenantId, query.tenantId),
        eq(messages.campaignId, query.campaignId),
        eq(messages.status, 'sent'),
      ),
    )
  return row?.count ?? 0
}

/** An edit that leaves a switch out keeps the stored value (drizzle would otherwise write null). */
function withoutUndefined<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T
}
