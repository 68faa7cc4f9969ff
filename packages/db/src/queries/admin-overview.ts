import type { Lane } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { sentSince } from './admin-recent-sends'

/** One minute of one lane: how many of its messages were marked sent in it. */
export interface LaneMinute {
  /** The minute's start, epoch seconds. */
  t: number
  lane: Lane
  sent: number
}

/**
 * Sends per lane in each minute from `since` (a minute's start) on, the minute in progress
 * included. Only minutes with sends are returned; the caller fills the gaps.
 */
export async function sentPerMinuteByLane(db: Executor, query: { since: Date }): Promise<LaneMinute[]> {
  const { since } = query
  const rows = await db.execute<{ t: number; lane: Lane; sent: number }>(sql`
    select (floor(extract(epoch from s.sent_at) / 60) * 60)::float8 as t, s.lane, count(*)::int as sent
    from ${sentSince(since)} s
    group by 1, 2
    order by 1, 2`)
  return rows.map((row) => ({ t: Number(row.t), lane: row.lane, sent: row.sent }))
}

/**
 * Age of the oldest outbox row the relay has not published yet (0 when none waits): how far behind
 * PostgreSQL → Redis is. The oldest by id, through the relay's own partial index.
 */
export async function outboxLagMs(db: Executor, query: { now: Date }): Promise<number> {
  const rows = await db.execute<{ ms: number }>(sql`
    select (extract(epoch from created_at) * 1000)::float8 as ms
    from outbox where published_at is null order by id limit 1`)
  const oldest = rows[0]?.ms
  if (oldest === undefined) return 0
  return Math.max(0, query.now.getTime() - Number(oldest))
}
