import { Queue } from 'bullmq'
import type { ErrorLogger, RedisClient } from './connections'
import { allLaneQueues, createLaneQueues, type LaneQueues } from './lane-queues'
import { DEAD_LETTER_QUEUE, queuePrefix, SYSTEM_QUEUE } from './names'

/** The lanes (sharded: `LaneQueues`), the dead letters and the schedulers' queue. */
export interface Queues {
  lanes: LaneQueues
  [DEAD_LETTER_QUEUE]: Queue
  [SYSTEM_QUEUE]: Queue
}

/**
 * Every BullMQ Queue Fairlane produces to, sharing a producer connection, each under its own hash
 * tag (`queuePrefix`); `laneShards` is LANE_SHARDS. Called only by composition roots.
 */
export function createQueues(
  connection: RedisClient,
  prefix: string,
  logger: ErrorLogger,
  laneShards: number,
): Queues {
  const single = (name: typeof DEAD_LETTER_QUEUE | typeof SYSTEM_QUEUE) => {
    const queue = new Queue(name, { connection, prefix: queuePrefix(prefix, name) })
    queue.on('error', (error: Error) => logger.error({ err: error.message, queue: name }, 'queue error'))
    return queue
  }
  return {
    lanes: createLaneQueues(connection, { prefix, shards: laneShards }, logger),
    [DEAD_LETTER_QUEUE]: single(DEAD_LETTER_QUEUE),
    [SYSTEM_QUEUE]: single(SYSTEM_QUEUE),
  }
}

/** Every queue of `queues`: each shard of each lane, the dead letters, the system queue. */
export function everyQueue(queues: Queues): Queue[] {
  return [...allLaneQueues(queues.lanes), queues[DEAD_LETTER_QUEUE], queues[SYSTEM_QUEUE]]
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(everyQueue(queues).map((queue) => queue.close()))
}
