import type { DeadLetterLogger, FailedMessageStore, RestorableDeadLetterQueue } from './ports'

/** Rows read and dead letters added per round trip. */
const PAGE = 500
/**
 * With the queue whole, each run still looks this far back: a worker that died between marking a row
 * failed and adding its dead letter leaves a gap no marker shows, and the next run fills it.
 */
export const RECENT_FAILURES_MS = 60_000

export interface RestoreDeadLettersInput {
  /**
   * Dead letters of messages that failed this long ago or less are restored (AUDIT_RETENTION_DAYS:
   * the audit entries that say which ones an admin discarded are kept that long).
   */
  retentionDays: number
  /** DEAD_LETTER_MAX_COUNT and DEAD_LETTER_MAX_AGE_DAYS: the restore never adds what the trim would remove. */
  caps: { maxCount: number; maxAgeDays: number }
}

export interface RestoreDeadLettersDeps {
  failures: FailedMessageStore
  queue: RestorableDeadLetterQueue
  clock: { now(): Date }
  logger: DeadLetterLogger
}

export type DeadLetterRestore =
  /** The marker was there: only the last minute's failures were looked at (`checked` of them). */
  | { kind: 'intact'; checked: number }
  /** The marker was there and the queue holds its cap: nothing was looked at (see below). */
  | { kind: 'full' }
  | { kind: 'restored'; deadLetters: number }

/**
 * Dead letters live in Redis, where the admin console lists and replays them; the `failed` rows in
 * PostgreSQL are the record. When Redis loses its data (FLUSHALL, a failover to a replica that was
 * behind, a restart without persistence) the dead letters would be gone while the rows still read
 * `failed`. A marker is written next to the dead-letter queue once it is complete; when the marker
 * is missing, every failed message within the retention that an admin did not discard gets its dead
 * letter back, under the id it had (so one that survived is not added twice), and the marker is
 * written again. With the marker in place it costs one look at the marker and one indexed look at the
 * last minute's failures (re-adding their dead letters is a no-op unless one is missing).
 *
 * The queue is capped (`trimDeadLetters`), and the restore keeps inside the cap so the two never undo
 * each other: a full restore adds only failures within DEAD_LETTER_MAX_AGE_DAYS and the newest
 * DEAD_LETTER_MAX_COUNT of them; the last-minute look adds at most the room left under the count cap,
 * and nothing while the queue holds its cap (there a missing recent dead letter cannot be told from one
 * the cap trimmed, and the `failed` row stays the record either way).
 */
export async function restoreDeadLetters(
  input: RestoreDeadLettersInput,
  deps: RestoreDeadLettersDeps,
): Promise<DeadLetterRestore> {
  const whole = await deps.queue.isComplete()
  const now = deps.clock.now().getTime()
  const keptDays = Math.min(input.retentionDays, input.caps.maxAgeDays)
  let failedSince = new Date(whole ? now - RECENT_FAILURES_MS : now - keptDays * 86_400_000)
  let room = input.caps.maxCount
  if (whole) {
    room -= await deps.queue.size()
    if (room <= 0) return { kind: 'full' }
  } else {
    const newest = await deps.failures.newestRestorableSince({ failedSince, keep: input.caps.maxCount })
    if (newest) failedSince = newest
  }
  let restored = 0
  let afterId: string | undefined
  while (room > 0) {
    const page = await deps.failures.findRestorable({
      failedSince,
      // The full restore's cut-off already keeps it to the count cap (ties at the cut-off aside).
      limit: whole ? Math.min(PAGE, room) : PAGE,
      ...(afterId ? { afterId } : {}),
    })
    if (page.length === 0) break
    // In failure order: the count trim removes the wait list's first-added, so the oldest failures
    // go first when ties at the cut-off (timestamps kept to the millisecond) restored a few too many.
    await deps.queue.add([...page].sort((a, b) => a.failedAt.getTime() - b.failedAt.getTime()))
    restored += page.length
    if (whole) room -= page.length
    afterId = page[page.length - 1]?.id
    if (page.length < PAGE) break
  }
  if (whole) return { kind: 'intact', checked: restored }
  await deps.queue.markComplete(deps.clock.now())
  if (restored > 0) deps.logger.warn({ deadLetters: restored }, 'dead letters restored from PostgreSQL')
  else deps.logger.info({}, 'dead-letter queue marked complete (nothing to restore)')
  return { kind: 'restored', deadLetters: restored }
}
