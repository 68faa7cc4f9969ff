import { type SQL, sql } from 'drizzle-orm'

/**
 * Every message sent at or after `since`, as rows `(tenant_id, lane, campaign_id, sent_at)`, for the
 * admin console's throughput and fairness views. `messages` has no index on `sent_at` alone, but
 * `messages_campaign_sent_idx (campaign_id, sent_at) WHERE sent_at IS NOT NULL` holds every sent
 * message: API mail under a NULL campaign id (one range scan), campaign mail under its campaign (one
 * range scan per campaign that can have sent in the window — still sending, or finished or cancelled
 * since). So the cost follows the sends in the window, never the table's history.
 */
export function sentSince(since: Date): SQL {
  const at = sql`${since.toISOString()}::timestamptz`
  return sql`(
    select m.tenant_id, m.lane, m.campaign_id, m.sent_at
    from messages m
    where m.campaign_id is null and m.sent_at >= ${at}
    union all
    select m.tenant_id, m.lane, m.campaign_id, m.sent_at
    from campaigns c
    cross join lateral (
      select m.tenant_id, m.lane, m.campaign_id, m.sent_at
      from messages m
      where m.campaign_id = c.id and m.sent_at >= ${at}
    ) m
    where c.status in ('dispatching', 'sending') or c.updated_at >= ${at}
      or c.completed_at >= ${at} or c.cancelled_at >= ${at}
  )`
}
