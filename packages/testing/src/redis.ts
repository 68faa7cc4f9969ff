import { randomBytes } from 'node:crypto'
import { createCluster, type RedisClient, type RedisTarget } from '@fairlane/queue'
import { Redis } from 'ioredis'

/**
 * A key prefix of a test's own: BullMQ queues and limiter keys under it cannot collide with another
 * test file running at the same time on the same Redis.
 */
export function testRedisPrefix(label = 't'): string {
  return `fl-test-${label}-${randomBytes(4).toString('hex')}`
}

/** The test file's Redis as the app's connection factories take it (`createProducerConnection(…)`). */
export function testRedisTarget(env: { redisUrl: string; redisCluster: boolean }): RedisTarget {
  return { url: env.redisUrl, cluster: env.redisCluster }
}

/**
 * A client for a test's own reads and writes: a single Redis, or in the `cluster` project a cluster
 * client (so MOVED is followed). A command is retried once, then fails the test. Disconnect it after.
 */
export function connectTestRedis(env: { redisUrl: string; redisCluster: boolean }): RedisClient {
  if (env.redisCluster) return createCluster(env.redisUrl, { maxRetriesPerRequest: 1 }, {})
  return new Redis(env.redisUrl, { maxRetriesPerRequest: 1 })
}
