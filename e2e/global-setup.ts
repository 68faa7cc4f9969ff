import { createRequire } from 'node:module'
import { E2E } from './playwright.config'

/**
 * Each run starts with fresh rate-limit counters. Every e2e test comes from 127.0.0.1, and the
 * sign-in throttle counts failed attempts per client address over 15 minutes: without this, a few
 * runs in a row on one machine (a developer's, then CI's) add up to the per-client cap and a test
 * that expects "wrong password" sees "too many attempts" instead. Only the `:rl:` keys go: the queues
 * under the same prefix belong to the platform the web server has already started.
 */
export default async function globalSetup(): Promise<void> {
  // The e2e package has no dependencies of its own; Redis is reached with the queue package's client.
  const require = createRequire(import.meta.url)
  const { Redis } = require('../packages/queue/node_modules/ioredis') as { Redis: RedisConstructor }
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', {
    maxRetriesPerRequest: 2,
  })
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${E2E.queuePrefix}:rl:*`, 'COUNT', 1000)
      if (keys.length > 0) await redis.unlink(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

/** The part of ioredis used here (its types are not resolvable from this package). */
type RedisConstructor = new (
  url: string,
  options: { maxRetriesPerRequest: number },
) => {
  scan(
    cursor: string,
    match: 'MATCH',
    pattern: string,
    count: 'COUNT',
    size: number,
  ): Promise<[string, string[]]>
  unlink(...keys: string[]): Promise<number>
  disconnect(): void
}
