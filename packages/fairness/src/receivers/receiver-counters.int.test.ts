import { connectTestRedis, testRedisPrefix } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { RedisClient } from '../redis-reads'
import { createReceiverCounters, MAX_KNOWN_RECEIVERS } from './receiver-counters'

// Only Redis is needed: the file's own key prefix keeps parallel files apart.
const prefix = `${testRedisPrefix('receiver-counters')}:`
let redis: RedisClient

beforeAll(() => {
  redis = connectTestRedis({ redisUrl: inject('redisUrl'), redisCluster: inject('redisCluster') })
  redis.on('error', () => {})
})

afterAll(() => redis.disconnect())

/** A clock the test moves: counters are per minute, and a test does not wait minutes. */
function movableClock(startMs: number) {
  let nowMs = startMs
  return {
    now: () => nowMs,
    advance(ms: number) {
      nowMs += ms
    },
  }
}

describe('receiver counters', () => {
  it('count per provider and egress address, with each tenant’s attempts, over the window asked', async () => {
    const clock = movableClock(Date.UTC(2026, 11, 6, 12, 0, 5))
    const counters = createReceiverCounters(redis, { prefix: `${prefix}window:`, clock })
    const google = { provider: 'google', egress: '127.0.0.1' }
    // Ten minutes ago: inside 60 minutes, outside 5.
    for (let index = 0; index < 3; index++)
      await counters.record({ ...google, tenantId: 'tenant-a', kind: 'attempt' })
    await counters.record({ ...google, tenantId: 'tenant-a', kind: 'throttled' })
    clock.advance(10 * 60_000)
    await Promise.all([
      counters.record({ ...google, tenantId: 'tenant-a', kind: 'attempt' }),
      counters.record({ ...google, tenantId: 'tenant-b', kind: 'attempt' }),
      counters.record({ ...google, tenantId: 'tenant-b', kind: 'attempt' }),
      counters.record({ ...google, tenantId: 'tenant-b', kind: 'accepted' }),
      counters.record({ ...google, tenantId: 'tenant-a', kind: 'deferred' }),
      counters.record({ provider: 'microsoft', egress: '', tenantId: 'tenant-b', kind: 'attempt' }),
    ])

    expect(await counters.read({ windowMinutes: 5 })).toEqual([
      {
        ...google,
        attempts: 3,
        accepted: 1,
        throttled: 0,
        deferred: 1,
        tenants: [
          { tenantId: 'tenant-b', attempts: 2 },
          { tenantId: 'tenant-a', attempts: 1 },
        ],
      },
      {
        provider: 'microsoft',
        egress: '',
        attempts: 1,
        accepted: 0,
        throttled: 0,
        deferred: 0,
        tenants: [{ tenantId: 'tenant-b', attempts: 1 }],
      },
    ])
    const hour = await counters.read({ windowMinutes: 60 })
    expect(hour[0]).toMatchObject({
      ...google,
      attempts: 6,
      throttled: 1,
      tenants: [
        { tenantId: 'tenant-a', attempts: 4 },
        { tenantId: 'tenant-b', attempts: 2 },
      ],
    })

    // Past the window, a pair with nothing in it is left out.
    clock.advance(61 * 60_000)
    expect(await counters.read({ windowMinutes: 60 })).toEqual([])
  })

  it('expire their minutes after about two hours', async () => {
    const counters = createReceiverCounters(redis, { prefix: `${prefix}ttl:` })
    await counters.record({ provider: 'yahoo', egress: '10.0.0.1', tenantId: 't', kind: 'attempt' })
    const keys = await redis.keys(`${prefix}ttl:receivers:{yahoo|10.0.0.1}:*`)
    expect(keys).toHaveLength(1)
    const ttlMs = await redis.pttl(keys[0] as string)
    expect(ttlMs).toBeGreaterThan(120 * 60_000)
    expect(ttlMs).toBeLessThanOrEqual(125 * 60_000)
  })

  it('keep the set of known pairs bounded, dropping the least recently used', async () => {
    const clock = movableClock(Date.UTC(2026, 11, 6, 13, 0, 0))
    const counters = createReceiverCounters(redis, { prefix: `${prefix}bounded:`, clock })
    const knownKey = `${prefix}bounded:receivers:known`
    // Straight into the set: recording 2,000 pairs one by one would only make the test slow.
    const filler: (string | number)[] = []
    for (let index = 0; index < MAX_KNOWN_RECEIVERS; index++)
      filler.push(clock.now() - 1_000 + index, JSON.stringify([`domain-${index}.example`, '']))
    await redis.zadd(knownKey, ...filler)
    await counters.record({ provider: 'google', egress: '', tenantId: 't', kind: 'attempt' })
    expect(await redis.zcard(knownKey)).toBe(MAX_KNOWN_RECEIVERS)
    expect(await redis.zscore(knownKey, JSON.stringify(['domain-0.example', '']))).toBeNull()
    expect(await redis.zscore(knownKey, JSON.stringify(['google', '']))).not.toBeNull()
  })

  it('refuse a name that would break the key, and a window it cannot answer', async () => {
    const counters = createReceiverCounters(redis, { prefix: `${prefix}bad:` })
    await expect(
      counters.record({ provider: 'goo{gle}', egress: '', tenantId: 't', kind: 'attempt' }),
    ).rejects.toThrow(/provider must be/)
    await expect(
      counters.record({ provider: 'google', egress: '', tenantId: 't', kind: 'sent' as 'attempt' }),
    ).rejects.toThrow(/kind must be one of/)
    await expect(counters.read({ windowMinutes: 121 })).rejects.toThrow(/windowMinutes must be/)
  })
})
