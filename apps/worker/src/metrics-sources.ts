import type { Lane } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { largestTenantBacklogs, oldestUnpublishedOutboxAgeMs } from '@fairlane/db/queries/worker-metrics'
import { DEAD_LETTER_QUEUE, type Queues } from '@fairlane/queue'
import type { DepthSource, LaneDepth } from './metrics'

/** Dead letters stay in their queue until replayed or discarded; no worker moves them, so any state counts. */
const DEAD_LETTER_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'] as const

/** The production `DepthSource`: BullMQ job counts from Redis, outbox lag and backlogs from PostgreSQL. */
export function createDepthSource(deps: {
  queues: Pick<Queues, Lane | typeof DEAD_LETTER_QUEUE>
  db: Database
  clock?: { now(): number }
}): DepthSource {
  const now = deps.clock?.now ?? Date.now
  return {
    async laneDepth(lane): Promise<LaneDepth> {
      const queue = deps.queues[lane]
      const [counts, oldest] = await Promise.all([
        queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'),
        // Ascending: the wait list's tail, the job that has waited longest.
        queue.getJobs(['waiting'], 0, 0, true),
      ])
      const oldestTimestamp = oldest[0]?.timestamp
      return {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
        oldestWaitingAgeMs: oldestTimestamp === undefined ? 0 : Math.max(0, now() - oldestTimestamp),
      }
    },
    async deadLetterSize() {
      const counts = await deps.queues[DEAD_LETTER_QUEUE].getJobCounts(...DEAD_LETTER_STATES)
      return Object.values(counts).reduce((sum, count) => sum + count, 0)
    },
    outboxLagMs: () => oldestUnpublishedOutboxAgeMs(deps.db),
    tenantBacklogs: (limit) => largestTenantBacklogs(deps.db, { limit }),
  }
}
