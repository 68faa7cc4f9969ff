import type { CampaignStatus } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { sentSince } from './admin-recent-sends'

/** One tenant's bulk sends in one bucket of the fairness window. */
export interface TenantBucket {
  /** The bucket's start, epoch seconds. */
  t: number
  tenantId: string
  sent: number
}

/**
 * Bulk-lane sends per tenant in `bucketSeconds` buckets (aligned to the epoch) from `since` on (only
 * buckets with sends; the caller fills gaps and caps the tenants it draws).
 */
export async function bulkSendsByTenant(
  db: Executor,
  query: { since: Date; bucketSeconds: number },
): Promise<TenantBucket[]> {
  const size = query.bucketSeconds
  const since = query.since
  const rows = await db.execute<{ t: number; tenant_id: string; sent: number }>(sql`
    select (floor(extract(epoch from s.sent_at) / ${size}::int) * ${size}::int)::float8 as t,
      s.tenant_id, count(*)::int as sent
    from ${sentSince(since)} s
    where s.lane = 'bulk'
    group by 1, 2
    order by 1, 2`)
  return rows.map((row) => ({ t: Number(row.t), tenantId: row.tenant_id, sent: row.sent }))
}

export interface CampaignStart {
  campaignId: string
  tenantId: string
  tenantName: string
  name: string
  status: CampaignStatus
  sendAt: Date
  firstSentAt: Date | null
  recipientCount: number
}

/**
 * The most recent campaigns whose send time has come, with the moment their first message was sent:
 * how long each tenant waited for the first send of a campaign, whatever else was queued. The first
 * send is one probe of `messages_campaign_sent_idx` per campaign.
 */
export async function recentCampaignStarts(
  db: Executor,
  query: { now: Date; limit: number },
): Promise<CampaignStart[]> {
  const rows = await db.execute<{
    id: string
    tenant_id: string
    tenant_name: string
    name: string
    status: CampaignStatus
    send_at_ms: number
    first_sent_ms: number | null
    recipient_count: number
  }>(sql`
    select c.id, c.tenant_id, t.name as tenant_name, c.name, c.status, c.recipient_count,
      (extract(epoch from c.send_at) * 1000)::float8 as send_at_ms,
      (extract(epoch from (
        select min(m.sent_at) from messages m where m.campaign_id = c.id and m.sent_at is not null
      )) * 1000)::float8 as first_sent_ms
    from campaigns c
    join tenants t on t.id = c.tenant_id
    where c.send_at is not null and c.send_at <= ${query.now.toISOString()}::timestamptz
      and c.status not in ('draft', 'scheduled')
    order by c.send_at desc
    limit ${query.limit}`)
  return rows.map((row) => ({
    campaignId: row.id,
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    name: row.name,
    status: row.status,
    sendAt: new Date(Number(row.send_at_ms)),
    firstSentAt: row.first_sent_ms === null ? null : new Date(Number(row.first_sent_ms)),
    recipientCount: row.recipient_count,
  }))
}
