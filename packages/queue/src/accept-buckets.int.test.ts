import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createAcceptBuckets } from './accept-buckets'

/** The accept buckets' Redis script with a message's cost (a large message spends more of the plan). */
const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 })
const prefix = `accept-cost-${randomUUID()}`
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

describe('the accept buckets in Redis', () => {
  it('spend a message’s cost: 10 of room take a 6 and a 4, not a 6 and a 6; a peek spends nothing', async () => {
    await redis.ping()
    const buckets = createAcceptBuckets({ redis, keyPrefix: prefix })
    // A slow refill (1 per 100 s), so nothing comes back during the test.
    const size = { ratePerSec: 0.01, capacity: 10 }
    expect(await buckets.peek('t', size)).toEqual({ allowed: true })
    expect(await buckets.take('t', size, 6)).toEqual({ allowed: true })
    expect(await buckets.take('t', size, 6)).toMatchObject({ allowed: false })
    // The refusal above is remembered until its retry time: ask a fresh process's buckets.
    const again = createAcceptBuckets({ redis, keyPrefix: prefix })
    expect(await again.take('t', size, 4)).toEqual({ allowed: true })
    expect(await again.peek('u', size)).toEqual({ allowed: true })
    expect(await again.take('t', size)).toMatchObject({ allowed: false })
  })
})
