import { connectTestRedis, testRedisPrefix } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { RedisClient } from '../redis-reads'
import { createLaneAdmission, type LaneAdmission } from './lane-admission'

// Only Redis is needed: the file's own key prefix keeps parallel files apart.
const prefix = `${testRedisPrefix('lane-slots')}:`
let redis: RedisClient
let lanes: LaneAdmission
const plan = { ratePerSec: 1_000, burst: 1_000 }
const admitInput = (jobIds: string[], overrides: Partial<Parameters<LaneAdmission['admit']>[1]> = {}) => ({
  jobIds,
  parkedCount: 0,
  admitFresh: true,
  plan,
  maxSlots: 3,
  slotTtlMs: 30_000,
  horizonMs: 1_000,
  ...overrides,
})

beforeAll(() => {
  redis = connectTestRedis({ redisUrl: inject('redisUrl'), redisCluster: inject('redisCluster') })
  lanes = createLaneAdmission(redis, { prefix })
})
afterAll(() => redis.disconnect())

describe('lane slots', () => {
  it('admits up to the slots, in order, and one more once a job gives its slot back', async () => {
    const first = await lanes.admit('critical:claim', admitInput(['j1', 'j2', 'j3', 'j4', 'j5']))
    expect(first.delaysMs).toHaveLength(3)
    expect(first.stoppedBy).toBe('slots')
    expect((await lanes.heldSlots('critical:claim')).sort()).toEqual(['j1', 'j2', 'j3'])
    // The two left over get turns one after the other (they will be parked in that order).
    const turns = first.parkTurnsMs(2)
    expect(turns[1]).toBeGreaterThan(turns[0] as number)

    expect(await lanes.release('critical:claim', 'j2')).toEqual({ removed: true, slotsLeft: 2 })
    // Released twice (a retried handler): nothing more is freed.
    expect(await lanes.release('critical:claim', 'j2')).toEqual({ removed: false, slotsLeft: 2 })
    // j4 and j5 were parked behind j1–j3 (a tail ahead): as parked rows whose turn came, one fits.
    const second = await lanes.admit('critical:claim', admitInput(['j4', 'j5'], { parkedCount: 2 }))
    expect(second.delaysMs).toHaveLength(1)
    expect((await lanes.heldSlots('critical:claim')).sort()).toEqual(['j1', 'j3', 'j4'])
  })

  it('counts a job that holds its slot again once, not twice (a deferred job coming back)', async () => {
    await lanes.admit('critical:hold', admitInput(['h1']))
    await lanes.hold('critical:hold', 'h1', 30_000)
    await lanes.hold('critical:hold', 'h1', 30_000)
    expect(await lanes.heldSlots('critical:hold')).toEqual(['h1'])
  })

  it('frees the slots of a job that never gave them back once they expire (a killed worker)', async () => {
    const admitted = await lanes.admit(
      'default:expiry',
      admitInput(['k1', 'k2', 'k3'], { slotTtlMs: 200, horizonMs: 0 }),
    )
    expect(admitted.delaysMs).toHaveLength(3)
    expect(await lanes.heldSlots('default:expiry')).toHaveLength(3)
    const deadline = Date.now() + 5_000
    while ((await lanes.heldSlots('default:expiry')).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(await lanes.heldSlots('default:expiry')).toEqual([])
    const again = await lanes.admit('default:expiry', admitInput(['k4', 'k5', 'k6'], { parkedCount: 3 }))
    expect(again.delaysMs).toHaveLength(3)
  })

  it('hands out turns at the plan and parks what lies beyond the horizon', async () => {
    const slow = { ratePerSec: 10, burst: 2 }
    const ids = Array.from({ length: 20 }, (_, i) => `t${i}`)
    const result = await lanes.admit(
      'critical:turns',
      admitInput(ids, { plan: slow, maxSlots: 100, horizonMs: 500 }),
    )
    // Two at once (the burst), then one every 100 ms up to 500 ms ahead.
    expect(result.delaysMs.slice(0, 2)).toEqual([0, 0])
    expect(result.delaysMs.length).toBe(7)
    expect(result.stoppedBy).toBe('turns')
    const parked = result.parkTurnsMs(ids.length - result.delaysMs.length)
    for (let i = 1; i < parked.length; i++) {
      expect((parked[i] as number) - (parked[i - 1] as number)).toBeCloseTo(100, 0)
    }
    // Fresh rows arriving now wait behind the parked ones.
    const later = await lanes.admit('critical:turns', admitInput(['t20'], { plan: slow, maxSlots: 100 }))
    expect(later.delaysMs).toEqual([])
    expect(later.stoppedBy).toBe('behind')
    expect(later.parkTurnsMs(1)[0]).toBeGreaterThan(parked.at(-1) as number)
  })
})
