import { type SQL, sql } from 'drizzle-orm'
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
  /** Pending bulk rows, counted up to `countCap` (a count equal to the cap means "at least"). */
  pending: number
  /** Queued rows among the oldest `countCap` queued rows of all tenants. */
  queued: number
}

/**
 * The `limit` tenants with the most mail not yet sent (pending in PostgreSQL or queued in Redis),
 * read as the pacer reads its backlog, so that a scrape costs rows in proportion to the tenants
 * waiting and never to the millions of rows they wait with: the tenants with pending bulk mail by a
 * loose index scan of the backlog index (one probe each), each one's pending rows counted up to
 * `countCap` (a LIMITed subquery on the same index), and the queued rows read through their partial
 * index, oldest first, at most `countCap` of them. At most (tenants waiting + 1) × `countCap` rows.
 */
export async function largestTenantBacklogs(
  db: Executor,
  query: { limit: number; countCap: number },
): Promise<TenantBacklogRow[]> {
  if (query.limit <= 0) return []
  const cap = Math.max(1, Math.floor(query.countCap))
  const rows = await db.execute<{ tenant_id: string; pending: number; queued: number }>(
    tenantBacklogsStatement({ limit: query.limit, countCap: cap }),
  )
  return rows.map((row) => ({ tenantId: row.tenant_id, pending: row.pending, queued: row.queued }))
}

/** The statement of `largestTenantBacklogs`, apart so a test can EXPLAIN it. */
export function tenantBacklogsStatement(query: { limit: number; countCap: number }): SQL {
  return sql`
    with recursive waiting(tenant_id) as (
      -- Ordered by the backlog index's whole key, as the pacer's scan is (see findBulkBacklog).
      (select tenant_id from messages
        where status = 'pending' and lane = 'bulk'
        order by tenant_id, created_at, id limit 1)
      union all
      select (select m.tenant_id from messages m
               where m.status = 'pending' and m.lane = 'bulk' and m.tenant_id > w.tenant_id
               order by m.tenant_id, m.created_at, m.id limit 1)
      from waiting w where w.tenant_id is not null
    ), pending as (
      select w.tenant_id, (select count(*) from (
          select 1 from messages m
          where m.tenant_id = w.tenant_id and m.status = 'pending' and m.lane = 'bulk'
          order by m.created_at, m.id
          limit ${query.countCap}) capped)::int as n
      from waiting w where w.tenant_id is not null
    ), queued as (
      select q.tenant_id, count(*)::int as n
      from (select m.tenant_id from messages m
            where m.status = 'queued'
            order by m.queued_at
            limit ${query.countCap}) q
      group by q.tenant_id
    )
    select coalesce(p.tenant_id, q.tenant_id) as tenant_id,
      coalesce(p.n, 0) as pending, coalesce(q.n, 0) as queued
    from pending p full join queued q on q.tenant_id = p.tenant_id
    order by coalesce(p.n, 0) + coalesce(q.n, 0) desc, 1
    limit ${query.limit}`
}
