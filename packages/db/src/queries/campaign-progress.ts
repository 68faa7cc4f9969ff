import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/** One second of a campaign's sending: how many of its messages were marked sent in it. */
export interface SendsInSecond {
  /** The second's start, in epoch seconds. */
  t: number
  sent: number
}

/**
 * A campaign's sends in each of the `seconds` whole seconds before `now`, oldest first, with the
 * seconds that sent nothing present as 0. The second in progress is left out, so the chart's newest
 * point is not always a dip. One range scan of `messages_campaign_sent_idx` (campaign, sent_at);
 * the tenant condition keeps another tenant's campaign id from reading anything.
 */
export async function campaignSendsPerSecond(
  db: Executor,
  query: { tenantId: string; campaignId: string; now: Date; seconds?: number },
): Promise<SendsInSecond[]> {
  const last = Math.floor(query.now.getTime() / 1000) - 1
  const first = last - (query.seconds ?? 60) + 1
  const rows = await db.execute<{ t: number; sent: number }>(sql`
    with sends as (
      select floor(extract(epoch from sent_at))::bigint as t, count(*)::int as sent
      from messages
      where campaign_id = ${query.campaignId}
        and tenant_id = ${query.tenantId}
        and sent_at >= to_timestamp(${first})
        and sent_at < to_timestamp(${last + 1})
      group by 1
    )
    select second.t::float8 as t, coalesce(sends.sent, 0)::int as sent
    from generate_series(${first}::bigint, ${last}::bigint) as second(t)
    left join sends on sends.t = second.t
    order by second.t`)
  return rows.map((row) => ({ t: Number(row.t), sent: row.sent }))
}
