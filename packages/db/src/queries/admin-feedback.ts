import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'

export interface TenantFeedbackCounts {
  tenantId: string
  name: string
  /** `sent` events in the window: mail the next hop accepted. */
  sent: number
  /** `bounced` events with `detail.kind = 'hard'`. */
  hardBounces: number
  /** `complained` events. */
  complaints: number
}

/**
 * Per tenant with any of them since `since`: sends, hard bounces and complaints, counted from
 * `message_events` in one pass. `at >= since` is a plain range on the column, so the planner can
 * read just the window's blocks through the BRIN on `at` (rows arrive in time order, so recent
 * events sit in the table's last blocks) instead of the whole table; the `type` filter and the
 * grouping then run over the window's events only. The cost follows the window's events (every
 * type: a message has three or more), so callers read it at most about once a minute. A partial
 * index `(at, tenant_id, type) where type in ('sent', 'bounced', 'complained')` would halve that by
 * skipping the other types, if the 24 h volume ever makes it matter.
 */
export async function tenantFeedbackSince(
  db: Executor,
  query: { since: Date },
): Promise<TenantFeedbackCounts[]> {
  const rows = await db.execute<{
    tenant_id: string
    name: string
    sent: number
    hard_bounces: number
    complaints: number
  }>(tenantFeedbackStatement(query.since))
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    name: row.name,
    sent: row.sent,
    hardBounces: row.hard_bounces,
    complaints: row.complaints,
  }))
}

/** The statement of `tenantFeedbackSince` (its test reads the plan). */
export function tenantFeedbackStatement(since: Date): SQL {
  return sql`
    with counts as (
      select tenant_id,
        count(*) filter (where type = 'sent')::int as sent,
        count(*) filter (where type = 'bounced' and detail->>'kind' = 'hard')::int as hard_bounces,
        count(*) filter (where type = 'complained')::int as complaints
      from message_events
      where at >= ${since.toISOString()}::timestamptz
        and type in ('sent', 'bounced', 'complained')
      group by tenant_id
    )
    select c.tenant_id, t.name, c.sent, c.hard_bounces, c.complaints
    from counts c
    join tenants t on t.id = c.tenant_id
    order by t.name, c.tenant_id`
}
