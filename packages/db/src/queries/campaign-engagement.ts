import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/** Unique engagement of a campaign: messages with a first open / click that was not a bot's. */
export interface CampaignEngagementCounts {
  opened: number
  clicked: number
}

export async function campaignEngagementCounts(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<CampaignEngagementCounts> {
  const [row] = await db.execute<{ opened: number; clicked: number }>(sql`
    select count(first_opened_at)::int as opened, count(first_clicked_at)::int as clicked
    from messages
    where tenant_id = ${query.tenantId}::uuid and campaign_id = ${query.campaignId}::uuid`)
  return { opened: row?.opened ?? 0, clicked: row?.clicked ?? 0 }
}

/** Recipients who left through this campaign's unsubscribe link (its messages' `unsubscribed` events). */
export async function campaignUnsubscribes(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<number> {
  const [row] = await db.execute<{ count: number }>(sql`
    select count(distinct e.message_id)::int as count
    from messages m join message_events e on e.tenant_id = m.tenant_id and e.message_id = m.id
    where m.tenant_id = ${query.tenantId}::uuid and m.campaign_id = ${query.campaignId}::uuid
      and e.type = 'unsubscribed'`)
  return row?.count ?? 0
}

export interface LinkClickRow {
  linkId: number
  url: string
  /** Every click that was not a bot's, repeats included. */
  clicks: number
  /** Recipients who clicked it (not bots). */
  uniqueClicks: number
}

/** The per-link table: every tracked link of the campaign, most clicked first. */
export async function campaignLinkClicks(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<LinkClickRow[]> {
  const rows = await db.execute<{
    link_id: string | number
    url: string
    clicks: number
    unique_clicks: number
  }>(sql`
    select l.id as link_id, l.url,
      coalesce(sum(c.clicks), 0)::int as clicks,
      count(c.message_id) filter (where c.clicks > 0)::int as unique_clicks
    from tracked_links l left join link_clicks c on c.link_id = l.id and c.tenant_id = l.tenant_id
    where l.tenant_id = ${query.tenantId}::uuid and l.campaign_id = ${query.campaignId}::uuid
    group by l.id, l.url
    order by unique_clicks desc, clicks desc, l.id`)
  return rows.map((row) => ({
    linkId: Number(row.link_id),
    url: row.url,
    clicks: row.clicks,
    uniqueClicks: row.unique_clicks,
  }))
}

export interface OpensPoint {
  at: Date
  opens: number
}

/**
 * Unique opens over time: per minute while the first opens span under two hours (a fresh campaign),
 * per hour after that, so the chart stays a few hundred points at most for a week's opens.
 */
export async function campaignOpensOverTime(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<{ unit: 'minute' | 'hour'; points: OpensPoint[] }> {
  const rows = await db.execute<{ at: string | Date; opens: number; unit: 'minute' | 'hour' }>(sql`
    with opens as (
      select first_opened_at as at from messages
      where tenant_id = ${query.tenantId}::uuid and campaign_id = ${query.campaignId}::uuid
        and first_opened_at is not null),
    span as (
      select case when max(at) - min(at) < interval '2 hours' then 'minute' else 'hour' end as unit from opens)
    select date_trunc((select unit from span), at) as at, count(*)::int as opens, (select unit from span) as unit
    from opens group by 1 order by 1`)
  return {
    unit: rows[0]?.unit ?? 'minute',
    points: rows.map((row) => ({ at: new Date(row.at), opens: row.opens })),
  }
}
