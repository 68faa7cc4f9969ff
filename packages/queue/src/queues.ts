import { Queue } from 'bullmq'
import type { ErrorLogger, RedisClient } from './connections'
import { QUEUE_NAMES, type QueueName, queuePrefix } from './names'

export type Queues = Record<QueueName, Queue>

/**
 * One BullMQ Queue per name, sharing a producer connection, each under its own hash tag
 * (`queuePrefix`). Called only by composition roots.
 */
export function createQueues(connection: RedisClient, prefix: string, logger: ErrorLogger): Queues {
  const entries = QUEUE_NAMES.map((name) => {
    const queue = new Queue(name, { connection, prefix: queuePrefix(prefix, name) })
    queue.on('error', (error: Error) => logger.error({ err: error.message, queue: name }, 'queue error'))
    return [name, queue] as const
  })
  return Object.fromEntries(entries) as Queues
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()))
}
