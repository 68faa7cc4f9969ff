import { connectTestRedis, testRedisPrefix } from '@fairlane/testing'
import type { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { maxInWindow, rateViolations } from '../metrics/fairness-metrics'
import type { RedisClient } from '../redis-reads'
import { createTokenBuckets, type TakeResult, type TokenBuckets } from './token-buckets'

// Only Redis is needed, so no database: the file's own key prefix keeps parallel files apart.
const prefix = `${testRedisPrefix('fairness')}:`
const clients: RedisClient[] = []

function connect(): RedisClient {
  const redis = connectTestRedis({ redisUrl: inject('redisUrl'), redisCluster: inject('redisCluster') })
  redis.on('error', () => {})
  clients.push(redis)
  return redis
}

let redis: RedisClient
let buckets: TokenBuckets

beforeAll(() => {
  redis = connect()
  buckets = createTokenBuckets(redis, { prefix })
})

afterAll(() => {
  for (const client of clients) client.disconnect()
})

describe('token buckets', () => {
  it('holds rate + burst in every 1 s window under concurrent hammering from several connections', async () => {
    const plan = { ratePerSec: 50, burst: 10 }
    // Four connections, as four workers would have, each with three callers in flight.
    const callers = Array.from({ length: 4 }, () => createTokenBuckets(connect(), { prefix }))
    const results: TakeResult[] = []
    // The test is about time itself: callers run until a deadline rather than waiting for an event.
    const deadline = Date.now() + 2500
    await Promise.all(
      callers.flatMap((caller) =>
        [1, 2, 3].map(async () => {
          while (Date.now() < deadline) results.push(await caller.take('bulk:hammered', plan))
        }),
      ),
    )

    // Counted by the Redis server's clock, as the script decided: no client-side skew to allow for.
    const allowed = results.filter((result) => result.ok).map((result) => result.atMs)
    expect(maxInWindow(allowed, 1000)).toBeLessThanOrEqual(plan.ratePerSec + plan.burst)
    expect(rateViolations(allowed, plan)).toBe(0)

    const first = allowed.reduce((a, b) => Math.min(a, b))
    const elapsedMs = allowed.reduce((a, b) => Math.max(a, b)) - first
    const ceiling = plan.burst + (plan.ratePerSec * elapsedMs) / 1000
    expect(allowed.length).toBeLessThanOrEqual(Math.floor(ceiling) + 1)
    // Hammered without pause, almost every token is taken as soon as it exists.
    expect(allowed.length).toBeGreaterThanOrEqual(Math.floor(ceiling * 0.95))

    const refused = results.flatMap((result) => (result.ok ? [] : [result]))
    expect(refused.length).toBeGreaterThan(0)
    // Reduced, not spread: a fast machine refuses hundreds of thousands here, past the call stack's limit.
    const waits = refused.map((result) => result.retryAfterMs)
    expect(waits.reduce((a, b) => Math.min(a, b))).toBeGreaterThan(0)
    expect(waits.reduce((a, b) => Math.max(a, b))).toBeLessThanOrEqual(1000 / plan.ratePerSec)
    expect(refused.map((result) => result.position).reduce((a, b) => Math.min(a, b))).toBeGreaterThanOrEqual(
      1,
    )
  })

  it('gives refused takes successive positions, spends nothing on them, and counts them', async () => {
    const plan = { ratePerSec: 1, burst: 2 }
    expect((await buckets.take('bulk:queue', plan)).ok).toBe(true)
    expect((await buckets.take('bulk:queue', plan)).ok).toBe(true)
    const refused = []
    for (let i = 0; i < 3; i++) refused.push(await buckets.take('bulk:queue', plan))
    expect(refused.map((result) => (result.ok ? 'taken' : result.position))).toEqual([1, 2, 3])
    for (const result of refused) {
      if (result.ok) continue
      // A refusal leaves tat alone: the next token is still within one interval.
      expect(result.retryAfterMs).toBeGreaterThan(0)
      expect(result.retryAfterMs).toBeLessThanOrEqual(1000)
    }
    expect(await buckets.deferredRecently(['bulk:queue'])).toEqual(new Map([['bulk:queue', 3]]))
    expect(await buckets.refusalTotals(['bulk:queue', 'bulk:never-used'])).toEqual([3, 0])
  })

  it('grants a batch as many tokens as the bucket holds, defers the rest once and counts each refused one', async () => {
    // A slow refill (1 per 100 s), so nothing comes back during the test.
    const plan = { ratePerSec: 0.01, burst: 5 }
    expect(await buckets.takeUpTo('bulk:batch', plan, 3)).toMatchObject({ granted: 3, all: true })
    const partial = await buckets.takeUpTo('bulk:batch', plan, 4)
    expect(partial).toMatchObject({ granted: 2, all: false, position: 1 })
    if (!partial.all) expect(partial.retryAfterMs).toBeGreaterThan(0)
    expect(await buckets.takeUpTo('bulk:batch', plan, 2)).toMatchObject({
      granted: 0,
      all: false,
      position: 2,
    })
    // The single take sees the same bucket: empty.
    expect((await buckets.take('bulk:batch', plan)).ok).toBe(false)
    // 2 refused of the first partial batch, 2 of the second, 1 single take.
    expect(await buckets.refusalTotals(['bulk:batch'])).toEqual([5])
    await expect(buckets.takeUpTo('bulk:batch', plan, 0)).rejects.toThrow(/count/)
  })

  it('keeps buckets independent', async () => {
    const plan = { ratePerSec: 1, burst: 1 }
    expect((await buckets.take('bulk:tenant-a', plan)).ok).toBe(true)
    expect((await buckets.take('bulk:tenant-a', plan)).ok).toBe(false)
    expect((await buckets.take('bulk:tenant-b', plan)).ok).toBe(true)
    expect(await buckets.deferredRecently(['bulk:tenant-a', 'bulk:tenant-b', 'bulk:never-used'])).toEqual(
      new Map([
        ['bulk:tenant-a', 1],
        ['bulk:tenant-b', 0],
        ['bulk:never-used', 0],
      ]),
    )
  })

  it('lets every key of a bucket expire once it no longer matters', async () => {
    const plan = { ratePerSec: 10, burst: 3 }
    for (let i = 0; i < 4; i++) await buckets.take('bulk:expiring', plan)
    // KEYS is per node: on a cluster, ask the masters (the bucket's keys share one slot, so one node).
    const nodes = redis.isCluster ? (redis as Cluster).nodes('master') : [redis]
    const keys = (
      await Promise.all(nodes.map((node) => node.keys(`${prefix}bucket:{bulk:expiring}:*`)))
    ).flat()
    expect(keys.length).toBe(4)
    for (const key of keys) {
      const ttlMs = await redis.pttl(key)
      expect(ttlMs).toBeGreaterThan(0)
      // tat: full again in three intervals (300 ms) + margin; deferral counters: two minutes;
      // the refusal total: ten minutes.
      const longest = key.endsWith(':refusals') ? 600_000 : key.includes(':deferred:') ? 120_000 : 1300
      expect(ttlMs).toBeLessThanOrEqual(longest)
    }
  })

  it('refuses a bucket name that would break the hash tag', async () => {
    await expect(buckets.take('bulk:{x}', { ratePerSec: 1, burst: 1 })).rejects.toThrow(RangeError)
  })
})
