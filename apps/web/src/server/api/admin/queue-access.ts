import { AppError } from '@fairlane/core/errors'
import type { Queues } from '@fairlane/queue'

/** A BullMQ job as the admin handlers see it (the web app reaches BullMQ only through @fairlane/queue). */
export type QueueJob = NonNullable<Awaited<ReturnType<Queues['dead-letter']['getJob']>>>

/**
 * The admin views read Redis directly. With Redis away, BullMQ may wait for a connection that never
 * comes; the admin gets a 503 naming the cause within a few seconds instead of a hung request.
 */
const QUEUE_CALL_TIMEOUT_MS = 3_000

export async function queueCall<T>(work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${QUEUE_CALL_TIMEOUT_MS} ms`)),
      QUEUE_CALL_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([work(), timeout])
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError(
      'service_unavailable',
      `The queue Redis is not answering: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  } finally {
    clearTimeout(timer)
  }
}
