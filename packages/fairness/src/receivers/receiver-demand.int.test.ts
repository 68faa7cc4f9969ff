import { connectTestRedis, testRedisPrefix } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { RedisClient } from '../redis-reads'
import { createReceiverDemand } from './receiver-demand'

// Only Redis is needed: the file's own key prefix keeps parallel files apart.
const prefix = `${testRedisPrefix('receiver-demand')}:`
let redis: RedisClient

beforeAll(() => {
  redis = connectTestRedis({ redisUrl: inject('redisUrl'), redisCluster: inject('redisCluster') })
  redis.on('error', () => {})
})

afterAll(() => redis.disconnect())

function movableClock(startMs: number) {
  let nowMs = startMs
  return {
    now: () => nowMs,
    advance(ms: number) {
      nowMs += ms
    },
  }
}

describe('receiver demand', () => {
  it('averages each tenant’s asks, marks the waiting as wanting any share, and forgets the idle', async () => {
    const clock = movableClock(Date.UTC(2026, 11, 6, 12))
    const demand = createReceiverDemand(redis, {
      prefix: `${prefix}a:`,
      tauMs: 10_000,
      windowMs: 10_000,
      clock,
    })
    const at = { egress: '127.0.0.2', provider: 'google' }
    // A steady 60 a minute (one a second) for a minute settles near 60 a minute.
    for (let second = 0; second < 60; second++) {
      await demand.note({ ...at, notes: [{ tenantId: 'small', weight: 1, kind: 'ask' }] })
      clock.advance(1_000)
    }
    const [small] = await demand.note({ ...at, notes: [] })
    expect(small?.tenantId).toBe('small')
    expect(small?.demandPerMinute).toBeGreaterThan(55)
    expect(small?.demandPerMinute).toBeLessThan(70)

    // The pacer notes its backlogged tenant as waiting, with its weight.
    const entries = await demand.note({ ...at, notes: [{ tenantId: 'bulk', weight: 3, kind: 'waiting' }] })
    expect(new Map(entries.map((entry) => [entry.tenantId, entry]))).toEqual(
      new Map([
        ['small', { tenantId: 'small', weight: 1, demandPerMinute: expect.any(Number) }],
        ['bulk', { tenantId: 'bulk', weight: 3, demandPerMinute: Number.POSITIVE_INFINITY }],
      ]),
    )
    // Another egress address is another budget.
    expect(await demand.note({ egress: '127.0.0.3', provider: 'google', notes: [] })).toEqual([])

    // Past the window, neither asking nor waiting: gone.
    clock.advance(10_001)
    expect(await demand.note({ ...at, notes: [] })).toEqual([])
  })

  it('refuses a name that would split the key or the fields, and a weight that is not above 0', async () => {
    const demand = createReceiverDemand(redis, { prefix: `${prefix}b:` })
    await expect(demand.note({ egress: '', provider: 'goo{gle}', notes: [] })).rejects.toThrow(
      /provider must be non-empty and free of/,
    )
    await expect(
      demand.note({ egress: '', provider: 'google', notes: [{ tenantId: 'a|b', weight: 1, kind: 'ask' }] }),
    ).rejects.toThrow(/tenantId/)
    await expect(
      demand.note({ egress: '', provider: 'google', notes: [{ tenantId: 'a', weight: 0, kind: 'ask' }] }),
    ).rejects.toThrow(/weight must be a number above 0, got 0/)
  })
})
