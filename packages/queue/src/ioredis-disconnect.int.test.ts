import { once } from 'node:events'
import { startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'

/**
 * ioredis 6.0.0 as patched (`patches/ioredis@6.0.0.patch`): a client told to disconnect while it waits
 * to reconnect used to clear its timer and wait on a socket already gone, so it never reached `end`
 * and a command it kept for the resend never settled (redis/ioredis#1830, the open PR #2169). BullMQ's
 * `Worker.close()` waits for exactly that `end` on its blocking connection (taskforcesh/bullmq#4656):
 * a worker stopped during a Redis blip hung until its forced exit. Seen here as the system worker's
 * close hanging after a `CLIENT KILL` in `system-worker.int.test.ts`.
 */
let redis: ThrowawayRedis | undefined
afterEach(async () => {
  await redis?.stop()
  redis = undefined
})

describe('ioredis disconnect while reconnecting', () => {
  it('ends the client and rejects the blocking command it held', async () => {
    redis = await startThrowawayRedis()
    // A long retry delay: the client is sure to be waiting on its timer when told to disconnect.
    const client = new Redis(redis.url, { retryStrategy: () => 60_000, maxRetriesPerRequest: null })
    client.on('error', () => {})
    await once(client, 'ready')
    const blocking = client.blpop(`never-pushed-${process.pid}`, 0).then(
      () => 'answered',
      (error: Error) => error.message,
    )
    const reconnecting = once(client, 'reconnecting')
    await redis.admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes')
    await reconnecting
    const ended = once(client, 'end').then(() => 'end')
    client.disconnect()
    const timeout = new Promise<string>((resolve) =>
      setTimeout(() => resolve('no end within 5 s'), 5_000).unref(),
    )
    expect(await Promise.race([ended, timeout])).toBe('end')
    expect(client.status).toBe('end')
    expect(await Promise.race([blocking, timeout])).toBe('Connection is closed.')
  })
})
