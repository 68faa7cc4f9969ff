import { LANES, type Lane } from '@fairlane/core'

/** Every BullMQ queue Fairlane runs: one per lane, the dead letters, and the schedulers' own queue. */
export const QUEUE_NAMES = [...LANES, 'dead-letter', 'system'] as const
export type QueueName = (typeof QUEUE_NAMES)[number]

export const DEAD_LETTER_QUEUE = 'dead-letter' satisfies QueueName
export const SYSTEM_QUEUE = 'system' satisfies QueueName

export function laneQueueName(lane: Lane): QueueName {
  return lane
}
