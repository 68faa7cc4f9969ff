import { describe, expect, it } from 'vitest'
import { createTokenBuckets } from './bucket/token-buckets'
import { governorKeys } from './governor/bulk-governor'
import { createLaneAdmission } from './lane/lane-admission'
import { hashTagOf, type RedisClient, readGroupedKeys, splitBySizes } from './redis-reads'

describe('hashTagOf', () => {
  it.each([
    ['fl:{critical}:critical:wait', 'critical'],
    ['fl:bucket:{bulk:t1}:tat', 'bulk:t1'],
    ['plain', 'plain'],
    ['a{}b{c}', 'a{}b{c}'],
    ['a{b', 'a{b'],
    ['{a}{b}', 'a'],
  ])('%s → %s', (key, tag) => {
    expect(hashTagOf(key)).toBe(tag)
  })
})

describe('keys that one script or MULTI touches share one hash slot', () => {
  it('governor: factor, steer and history', () => {
    const keys = Object.values(governorKeys('fl'))
    expect(new Set(keys.map(hashTagOf))).toEqual(new Set(['governor']))
  })

  it('token bucket take: every key of the bucket, the deferral counters included', async () => {
    const calls: unknown[][] = []
    const redis = fakeRedis({ fairlaneBucketTake: (...args: unknown[]) => calls.push(args) && [1, 0] })
    await createTokenBuckets(redis, { prefix: 'fl:' }).take('bulk:t1', { ratePerSec: 10, burst: 5 })
    const keys = (calls[0] as string[]).slice(0, 4)
    expect(keys.map(hashTagOf)).toEqual(['bulk:t1', 'bulk:t1', 'bulk:t1', 'bulk:t1'])
  })

  it("lane admission: the tenant's slots, turns and its worker bucket", async () => {
    const calls: unknown[][] = []
    const redis = fakeRedis({
      fairlaneLaneAdmit: (...args: unknown[]) => calls.push(args) && [0, 0, 0, 0, 0, 0],
    })
    await createLaneAdmission(redis, { prefix: 'fl:' }).admit('critical:t1', {
      jobIds: ['j1'],
      parkedCount: 0,
      admitFresh: true,
      plan: { ratePerSec: 10, burst: 5 },
      maxSlots: 4,
      slotTtlMs: 1000,
      horizonMs: 1000,
    })
    const keys = (calls[0] as string[]).slice(0, 4)
    expect(new Set(keys.map(hashTagOf))).toEqual(new Set(['critical:t1']))
  })
})

describe('readGroupedKeys', () => {
  it('reads every group in one MGET on a single Redis', async () => {
    const mgets: string[][] = []
    const redis = fakeRedis({ mget: (keys: string[]) => mgets.push(keys) && keys.map((key) => `v-${key}`) })
    expect(await readGroupedKeys(redis, [['a', 'b'], [], ['c']])).toEqual([['v-a', 'v-b'], [], ['v-c']])
    expect(mgets).toEqual([['a', 'b', 'c']])
  })

  it('reads each group in its own MGET on a cluster (one slot each), none for an empty group', async () => {
    const mgets: string[][] = []
    const redis = fakeRedis({
      isCluster: true,
      mget: (keys: string[]) => mgets.push(keys) && keys.map((key) => `v-${key}`),
    })
    expect(await readGroupedKeys(redis, [['{a}1', '{a}2'], [], ['{c}1']])).toEqual([
      ['v-{a}1', 'v-{a}2'],
      [],
      ['v-{c}1'],
    ])
    expect(mgets).toEqual([['{a}1', '{a}2'], ['{c}1']])
  })

  it('splitBySizes cuts consecutive runs', () => {
    expect(splitBySizes([1, 2, 3, 4], [[0, 0], [], [0], [0]])).toEqual([[1, 2], [], [3], [4]])
  })
})

/** Just enough of an ioredis client to see which keys a call passes. */
function fakeRedis(methods: Record<string, unknown>): RedisClient {
  const client: Record<string, unknown> = { isCluster: false, defineCommand() {}, ...methods }
  for (const [name, method] of Object.entries(client)) {
    if (typeof method === 'function' && name !== 'defineCommand') {
      client[name] = async (...args: unknown[]) => (method as (...a: unknown[]) => unknown)(...args)
    }
  }
  return client as unknown as RedisClient
}
