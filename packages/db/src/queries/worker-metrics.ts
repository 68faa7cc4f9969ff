import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/**
 * Read on every Prometheus scrape of the worker, so each is one indexed statement.
 */

/** Age of the oldest unpublished outbox row in ms (0 when none): how far the relay is behind. */
export async function oldestUnpublishedOutboxAgeMs(db: Executor): Promise<number> {
  // Ids grow with time, and the partial index holds only unpublished rows: the first is the oldest.
  const rows = await db.execute<{ age_ms: number }>(sql`
    select greatest(0, extract(epoch from now() - created_at) * 1000)::float8 as age_ms
    from outbox where published_at is null
    order by id limit 1
  `)
  return rows[0]?.age_ms ?? 0
}

export interface TenantBacklogRow {
  tenantId: string
  pending: number
  queued: number
}

/** The `limit` tenants with the most mail not yet sent (pending in PostgreSQL or queued in Redis). */
export async function largestTenantBacklogs(
  db: Executor,
  query: { limit: number },
): Promise<TenantBacklogRow[]> {
  if (query.limit <= 0) return []
  const rows = await db.execute<{ tenant_id: string; pending: number; queued: number }>(sql`
    select tenant_id,
      count(*) filter (where status = 'pending')::int as pending,
      count(*) filter (where status = 'queued')::int as queued
    from messages
    where status in ('pending', 'queued')
    group by tenant_id
    order by count(*) desc, tenant_id
    limit ${query.limit}
  `)
  return rows.map((row) => ({ tenantId: row.tenant_id, pending: row.pending, queued: row.queued }))
}
