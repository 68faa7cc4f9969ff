import { DateTime } from 'luxon'

/**
 * Where the retention walk stands: the last finished message it looked at, by (created_at, id). The
 * timestamp stays PostgreSQL's text (microseconds), which a `Date` would cut to milliseconds.
 */
export interface RetentionKey {
  createdAt: string
  id: string
}

export interface RetentionBatch {
  /** Finished messages created before this are past their retention. */
  createdBefore: Date
  /**
   * The end of the last day the daily rollup has covered: a message whose outcome (sent, failed,
   * suppressed, its last change) falls at or after it is kept, or its day would lose it.
   */
  finishedBefore: Date
  after: RetentionKey | null
  limit: number
}

export interface MessageRetentionStore {
  /** The daily rollup's cursor: the start of the last day it wrote, or null before its first run. */
  readRollupCursor(): Promise<Date | null>
  /**
   * Looks at the next `limit` finished messages after `after` created before `createdBefore`, and
   * deletes those that are not in flight, with what hangs off them, in one short statement.
   * `scanned` < `limit` means the walk reached the end; `last` is where the next batch starts.
   */
  deleteBatch(batch: RetentionBatch): Promise<{ scanned: number; deleted: number; last: RetentionKey | null }>
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The bounds of one night's message retention, or null when nothing may go: without a rollup there
 * is no daily record to keep in place of the messages. Messages go once they are older than
 * `retentionDays` AND their day is in the rollup (whichever is earlier), so a rollup that stalled
 * for a week holds the deletes back a week instead of losing the days it has not counted.
 */
export function messageRetentionBounds(input: {
  now: Date
  retentionDays: number
  rollupCursor: Date | null
  /** SCHEDULE_TIME_ZONE: the zone the rollup cuts its days in. */
  timeZone: string
}): { createdBefore: Date; finishedBefore: Date } | null {
  if (input.rollupCursor === null) return null
  const rolledDay = DateTime.fromJSDate(input.rollupCursor, { zone: input.timeZone }).startOf('day')
  if (!rolledDay.isValid) throw new Error(`invalid time zone ${JSON.stringify(input.timeZone)}`)
  const finishedBefore = rolledDay.plus({ days: 1 }).toJSDate()
  const byAge = new Date(input.now.getTime() - input.retentionDays * DAY_MS)
  return { createdBefore: byAge < finishedBefore ? byAge : finishedBefore, finishedBefore }
}

export interface ExpireMessagesDeps {
  store: MessageRetentionStore
  clock: { now(): Date }
  /** MESSAGE_RETENTION_DAYS. */
  retentionDays: number
  timeZone: string
  batchSize: number
}

/**
 * Message retention: deletes finished messages past MESSAGE_RETENTION_DAYS whose day the rollup has
 * counted, batch by batch in key order, so each batch is one short statement and a message skipped
 * because it is still in flight (an unpublished outbox row, a webhook delivery pending) is passed
 * once, not read again by every batch. Open messages (pending, queued, sending, held) are never
 * looked at, however old. A run that dies half-way leaves the rest to the next night.
 */
export async function expireMessages(
  deps: ExpireMessagesDeps,
): Promise<{ deleted: number; batches: number }> {
  const bounds = messageRetentionBounds({
    now: deps.clock.now(),
    retentionDays: deps.retentionDays,
    rollupCursor: await deps.store.readRollupCursor(),
    timeZone: deps.timeZone,
  })
  if (bounds === null) return { deleted: 0, batches: 0 }
  let after: RetentionKey | null = null
  let deleted = 0
  let batches = 0
  for (;;) {
    const batch = await deps.store.deleteBatch({ ...bounds, after, limit: deps.batchSize })
    deleted += batch.deleted
    batches += 1
    if (batch.scanned < deps.batchSize || batch.last === null) return { deleted, batches }
    after = batch.last
  }
}
