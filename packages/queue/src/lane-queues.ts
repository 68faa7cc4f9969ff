import { LANES, type Lane } from '@fairlane/core'
import { Queue } from 'bullmq'
import type { ErrorLogger, RedisClient } from './connections'
import { laneShards, tenantShard } from './lane-shards'

/**
 * The lanes' BullMQ queues, each lane split into `shardCount` queues (LANE_SHARDS). A tenant's jobs
 * always go to one shard (`tenantShard`), so what is said of "the lane's queue" elsewhere holds per
 * tenant: producers and lookups of one message ask `queueFor`; whatever reads the whole lane (depths,
 * counts, workers, the admin console) goes over `shardsOf`.
 */
export interface LaneQueues {
  readonly shardCount: number
  /** The queue of the tenant's shard of the lane: where its jobs are added and looked up. */
  queueFor(lane: Lane, tenantId: string): Queue
  /** Every shard of the lane, shard 0 (named as the lane) first. */
  shardsOf(lane: Lane): readonly Queue[]
}

/** One BullMQ Queue per shard of every lane, on the given producer connection. */
export function createLaneQueues(
  connection: RedisClient,
  options: { prefix: string; shards: number },
  logger: ErrorLogger,
): LaneQueues {
  const byLane = new Map<Lane, Queue[]>()
  for (const lane of LANES) {
    const queues = laneShards(options.prefix, lane, options.shards).map((shard) => {
      const queue = new Queue(shard.name, { connection, prefix: shard.prefix })
      queue.on('error', (error: Error) =>
        logger.error({ err: error.message, queue: shard.name, lane }, 'queue error'),
      )
      return queue
    })
    byLane.set(lane, queues)
  }
  const shardsOf = (lane: Lane): Queue[] => {
    const queues = byLane.get(lane)
    if (!queues) throw new Error(`no queues for lane ${lane}`)
    return queues
  }
  return {
    shardCount: options.shards,
    queueFor(lane, tenantId) {
      const queue = shardsOf(lane)[tenantShard(tenantId, options.shards)]
      if (!queue) throw new Error(`no shard of lane ${lane} for tenant ${tenantId}`)
      return queue
    },
    shardsOf,
  }
}

type JobCountType = Parameters<Queue['getJobCounts']>[number]

/** A lane's job counts summed over its shards (each type present, 0 when no shard has one). */
export async function laneJobCounts(
  queues: Pick<LaneQueues, 'shardsOf'>,
  lane: Lane,
  ...types: JobCountType[]
): Promise<Record<string, number>> {
  const perShard = await Promise.all(queues.shardsOf(lane).map((queue) => queue.getJobCounts(...types)))
  const total: Record<string, number> = Object.fromEntries(types.map((type) => [type, 0]))
  for (const counts of perShard) {
    for (const [type, count] of Object.entries(counts)) total[type] = (total[type] ?? 0) + count
  }
  return total
}

/** When the lane's longest-waiting job (over all shards) was added; undefined when none waits. */
export async function oldestWaitingTimestamp(
  queues: Pick<LaneQueues, 'shardsOf'>,
  lane: Lane,
): Promise<number | undefined> {
  // Ascending: each wait list's tail, the job that has waited longest there, and the head of each
  // prioritized set (the bulk lane's old flows, `OLD_FLOWS_PRIORITY`: one priority, so its oldest).
  const tails = await Promise.all(
    queues
      .shardsOf(lane)
      .flatMap((queue) => [
        queue.getJobs(['waiting'], 0, 0, true),
        queue.getJobs(['prioritized'], 0, 0, true),
      ]),
  )
  const timestamps = tails.flatMap((jobs) => (jobs[0] ? [jobs[0].timestamp] : []))
  return timestamps.length === 0 ? undefined : Math.min(...timestamps)
}

/** Every lane queue (every shard of every lane), for closing. */
export function allLaneQueues(queues: Pick<LaneQueues, 'shardsOf'>): Queue[] {
  return LANES.flatMap((lane) => [...queues.shardsOf(lane)])
}
