/**
 * Rejects after `ms`, naming the call; the call itself is left to finish or fail on its own (its
 * late rejection is absorbed). For Redis calls made while a pass must not wait forever: ioredis
 * queues commands while it reconnects, so without this a Redis outage is a hang, not an error.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer ${what} within ${ms} ms`)), ms)
  })
  work.catch(() => {})
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}
