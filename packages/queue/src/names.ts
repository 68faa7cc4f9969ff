import { LANES, type Lane } from '@fairlane/core'

/** Every BullMQ queue Fairlane runs: one per lane, the dead letters, and the schedulers' own queue. */
export const QUEUE_NAMES = [...LANES, 'dead-letter', 'system'] as const
export type QueueName = (typeof QUEUE_NAMES)[number]

export const DEAD_LETTER_QUEUE = 'dead-letter' satisfies QueueName
export const SYSTEM_QUEUE = 'system' satisfies QueueName

export function laneQueueName(lane: Lane): QueueName {
  return lane
}

/**
 * The BullMQ prefix of one queue: `<QUEUE_PREFIX>:{<queue>}`. The braces are a Redis Cluster hash tag,
 * so every key of a queue (BullMQ's scripts touch several at once) lives in one slot, and different
 * queues (lanes, their shards) can live on different nodes. Every Queue, Worker and QueueEvents of
 * Fairlane takes its prefix from here; on a single Redis the braces change nothing but the key names.
 */
export function queuePrefix(basePrefix: string, queue: string): string {
  return `${basePrefix}:{${queue}}`
}
