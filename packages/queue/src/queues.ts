import { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { ErrorLogger } from './connections'
import { QUEUE_NAMES, type QueueName } from './names'

export type Queues = Record<QueueName, Queue>

/** One BullMQ Queue per name, sharing a producer connection. Called only by composition roots. */
export function createQueues(connection: Redis, prefix: string, logger: ErrorLogger): Queues {
  const entries = QUEUE_NAMES.map((name) => {
    const queue = new Queue(name, { connection, prefix })
    queue.on('error', (error: Error) => logger.error({ err: error.message, queue: name }, 'queue error'))
    return [name, queue] as const
  })
  return Object.fromEntries(entries) as Queues
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()))
}
