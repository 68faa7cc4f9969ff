import { FEEDBACK_WINDOW_HOURS } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { tenantFeedbackSince } from '@fairlane/db/queries/admin-feedback'
import { countPendingWebhookDeliveries } from '@fairlane/db/queries/webhook-deliveries'
import { largestTenantBacklogs, oldestUnpublishedOutboxAgeMs } from '@fairlane/db/queries/worker-metrics'
import {
  DEAD_LETTER_QUEUE,
  laneJobCounts,
  masterNodes,
  oldestWaitingTimestamp,
  type Queues,
  type RedisClient,
} from '@fairlane/queue'
import { DEAD_LETTER_STATES } from './lanes/dead-letter-trim'
import type { DepthSource, LaneDepth } from './metrics'

/**
 * How far each tenant's backlog is counted on a scrape (`fairlane_tenant_backlog`): beyond it the
 * gauge reads the cap. The gauge ranks the largest backlogs; telling 10,000 from 2 million is the
 * admin API's job, and counting them all cost a scrape one row read per row waiting.
 */
export const TENANT_BACKLOG_COUNT_CAP = 10_000

/**
 * The production `DepthSource`: BullMQ job counts from Redis (a lane's summed over its shards, the
 * oldest waiting job the oldest of any shard), outbox lag and backlogs from PostgreSQL.
 */
export function createDepthSource(deps: {
  queues: Pick<Queues, 'lanes' | typeof DEAD_LETTER_QUEUE>
  db: Database
  /** The queues' Redis, for its memory (`INFO memory`). */
  redis: Pick<RedisClient, 'info' | 'isCluster'>
  clock?: { now(): number }
}): DepthSource {
  const now = deps.clock?.now ?? Date.now
  return {
    async laneDepth(lane): Promise<LaneDepth> {
      const [counts, oldestTimestamp] = await Promise.all([
        laneJobCounts(deps.queues.lanes, lane, 'waiting', 'prioritized', 'active', 'delayed', 'failed'),
        oldestWaitingTimestamp(deps.queues.lanes, lane),
      ])
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
    async redisMemory() {
      // On a cluster each master holds its own share: the sum is the queue's memory.
      const nodes = deps.redis.isCluster ? await masterNodes(deps.redis as RedisClient) : [deps.redis]
      let usedBytes = 0
      let maxBytes = 0
      for (const node of nodes) {
        const info = await node.info('memory')
        const field = (name: string) =>
          Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN)
        const used = field('used_memory')
        if (!Number.isFinite(used)) throw new Error('INFO memory has no used_memory')
        usedBytes += used
        maxBytes += field('maxmemory') || 0
      }
      return { usedBytes, maxBytes }
    },
    outboxLagMs: () => oldestUnpublishedOutboxAgeMs(deps.db),
    webhookPending: () => countPendingWebhookDeliveries(deps.db),
    tenantBacklogs: (limit) => largestTenantBacklogs(deps.db, { limit, countCap: TENANT_BACKLOG_COUNT_CAP }),
    tenantFeedback: createTenantFeedbackSource({ db: deps.db, now }),
  }
}

/** The tenants' sends, hard bounces and complaints over the last 24 hours, from `message_events`. */
export function createTenantFeedbackSource(deps: {
  db: Database
  now(): number
}): DepthSource['tenantFeedback'] {
  return async () => {
    const since = new Date(deps.now() - FEEDBACK_WINDOW_HOURS * 3_600_000)
    const rows = await tenantFeedbackSince(deps.db, { since })
    return rows.map(({ name: _name, ...counts }) => counts)
  }
}
