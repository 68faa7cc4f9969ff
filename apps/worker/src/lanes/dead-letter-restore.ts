import type { Database } from '@fairlane/db'
import { findRestorableDeadLetters } from '@fairlane/db/queries/dead-letters'
import { deadLetterJob, sendJobId } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { redactAddresses } from './redact'

/** Rows read and dead letters added per round trip. */
const PAGE = 500
/**
 * With the queue whole, each run still looks this far back: a worker that died between marking a row
 * failed and adding its dead letter leaves a gap no marker shows, and the next run fills it.
 */
export const RECENT_FAILURES_MS = 60_000

export interface DeadLetterRestoreDeps {
  db: Database
  queue: Pick<Queue, 'addBulk' | 'qualifiedName'>
  /** The queue's Redis, for the marker key. */
  redis: Pick<Redis, 'exists' | 'set'>
  /** Dead letters of messages that failed this long ago or less are restored (AUDIT_RETENTION_DAYS:
   * the audit entries that say which ones an admin discarded are kept that long). */
  retentionDays: number
  clock: { now(): Date }
  logger: Logger
}

export type DeadLetterRestore =
  /** The marker was there: only the last minute's failures were looked at (`checked` of them). */
  { kind: 'intact'; checked: number } | { kind: 'restored'; deadLetters: number }

/**
 * Dead letters live in Redis, where the admin console lists and replays them; the `failed` rows in
 * PostgreSQL are the record. When Redis loses its data (FLUSHALL, a failover to a replica that was
 * behind, a restart without persistence) the dead letters would be gone while the rows still read
 * `failed`. A marker key is written next to the dead-letter queue once it is complete; when the marker
 * is missing, every failed message within the retention that an admin did not discard gets its dead
 * letter back, under the id it had (derived from the message and its generation, so one that
 * survived is not added twice), and the marker is written again. With the marker in place it costs
 * one EXISTS and one indexed look at the last minute's failures (re-adding their dead letters is a
 * no-op unless one is missing); it runs as a job scheduler every few seconds, so a flushed Redis has
 * its dead letters back within one period of the schedulers' own re-registration.
 */
export async function restoreDeadLetters(deps: DeadLetterRestoreDeps): Promise<DeadLetterRestore> {
  const { redis } = deps
  const marker = `${deps.queue.qualifiedName}:complete`
  const whole = (await redis.exists(marker)) === 1
  const now = deps.clock.now().getTime()
  const failedSince = new Date(whole ? now - RECENT_FAILURES_MS : now - deps.retentionDays * 86_400_000)
  let restored = 0
  let afterId: string | undefined
  for (;;) {
    const page = await findRestorableDeadLetters(deps.db, {
      failedSince,
      limit: PAGE,
      ...(afterId ? { afterId } : {}),
    })
    if (page.length === 0) break
    await deps.queue.addBulk(
      page.map((message) =>
        deadLetterJob({
          v: 1,
          queue: message.lane,
          jobId: sendJobId(message.id, message.generation),
          messageId: message.id,
          tenantId: message.tenantId,
          error: redactAddresses(message.lastError ?? 'failed (no error recorded)'),
          attempts: message.attempts,
          failedAt: message.failedAt.toISOString(),
        }),
      ),
    )
    restored += page.length
    afterId = page[page.length - 1]?.id
    if (page.length < PAGE) break
  }
  if (whole) return { kind: 'intact', checked: restored }
  await redis.set(marker, deps.clock.now().toISOString())
  if (restored > 0) deps.logger.warn({ deadLetters: restored }, 'dead letters restored from PostgreSQL')
  else deps.logger.info('dead-letter queue marked complete (nothing to restore)')
  return { kind: 'restored', deadLetters: restored }
}
