import { type DeadLetterRestore, restoreDeadLetters as restore } from '@fairlane/core/dead-letters'
import type { Database } from '@fairlane/db'
import { createFailedMessageStore } from '@fairlane/db/queries/dead-letters'
import { deadLetterJob, type RedisClient, sendJobId } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import { DEAD_LETTER_STATES } from './dead-letter-trim'
import { redactAddresses } from './redact'

export type { DeadLetterRestore }

export interface DeadLetterRestoreDeps {
  db: Database
  queue: Pick<Queue, 'addBulk' | 'qualifiedName' | 'getJobCounts'>
  /** The queue's Redis, for the marker key. */
  redis: Pick<RedisClient, 'exists' | 'set'>
  /** Dead letters of messages that failed this long ago or less are restored (AUDIT_RETENTION_DAYS:
   * the audit entries that say which ones an admin discarded are kept that long). */
  retentionDays: number
  /** DEAD_LETTER_MAX_COUNT and DEAD_LETTER_MAX_AGE_DAYS: the restore never adds what the trim would remove. */
  caps: { maxCount: number; maxAgeDays: number }
  clock: { now(): Date }
  logger: Logger
}

/**
 * The dead-letter restore (`restoreDeadLetters` in core) against PostgreSQL and the dead-letter queue:
 * the marker is a key next to the queue, and each failed message is added as the dead letter its
 * send would have written (addresses redacted from its error). It runs as a job scheduler every few
 * seconds, so a flushed Redis has its dead letters back within one period of the schedulers' own
 * re-registration.
 */
export function restoreDeadLetters(deps: DeadLetterRestoreDeps): Promise<DeadLetterRestore> {
  const { queue, redis } = deps
  const marker = `${queue.qualifiedName}:complete`
  return restore(
    { retentionDays: deps.retentionDays, caps: deps.caps },
    {
      failures: createFailedMessageStore(deps.db),
      queue: {
        isComplete: async () => (await redis.exists(marker)) === 1,
        async markComplete(at) {
          await redis.set(marker, at.toISOString())
        },
        async size() {
          const counts = await queue.getJobCounts(...DEAD_LETTER_STATES)
          return Object.values(counts).reduce((sum, count) => sum + count, 0)
        },
        async add(messages) {
          await queue.addBulk(
            messages.map((message) =>
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
        },
      },
      clock: deps.clock,
      logger: deps.logger,
    },
  )
}
