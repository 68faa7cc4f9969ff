import { describe, expect, it } from 'vitest'
import { bulkShares, stackedRates } from './fairness-view'

const tenant = (tenantId: string, sent: number, weight: number, backlog = 0, ratePerSec = 10) => ({
  tenantId,
  name: tenantId,
  weight,
  ratePerSec,
  sent,
  backlog,
})

/** `perSecond` sends in each one-second bucket of `seconds`, from 0. */
const steady = (tenantId: string, perSecond: number, seconds: number, from = 0) =>
  Array.from({ length: seconds }, (_, i) => ({ tenantId, t: from + i, sent: perSecond }))

describe('bulkShares', () => {
  it('is 1 when every competing tenant got its weight’s part of a lane short of their plans', () => {
    // 10/s shared 3:1 by weight between two tenants whose plans (10/s) each allow more.
    const { shares, jainIndex } = bulkShares(
      [tenant('a', 30, 3), tenant('b', 10, 1), tenant('idle', 0, 5)],
      [...steady('a', 7.5, 4), ...steady('b', 2.5, 4)],
      1,
    )
    expect(shares.map((s) => [s.tenantId, s.share, s.weightShare, s.fairShare])).toEqual([
      ['a', 0.75, 0.75, 0.75],
      ['b', 0.25, 0.25, 0.25],
    ])
    expect(jainIndex).toBeCloseTo(1)
  })

  it('calls two tenants sending at their own plans’ full rates fair, idle time in the window or not', () => {
    // The reported case: plans of 10/s and 50/s, both at full rate for 60 s of a 180 s window (was 0.66–0.71).
    const { shares, jainIndex, competedSeconds } = bulkShares(
      [tenant('ten', 600, 1, 0, 10), tenant('fifty', 3000, 1, 0, 50)],
      [...steady('ten', 10, 60, 100), ...steady('fifty', 50, 60, 100)],
      1,
    )
    expect(jainIndex).toBeCloseTo(1, 6)
    expect(competedSeconds).toBe(60)
    expect(shares.find((s) => s.tenantId === 'ten')?.fairShare).toBeCloseTo(1 / 6)
  })

  it('does not count a tenant held back by its own plan as short-changed', () => {
    // 30 sends a second; b's plan allows 10/s, so that is all it may have: a fair lane gives a the other 20.
    const { shares, jainIndex } = bulkShares(
      [tenant('a', 40, 1, 100, 100), tenant('b', 20, 5, 100, 10)],
      [...steady('a', 20, 2), ...steady('b', 10, 2)],
      1,
    )
    const b = shares.find((s) => s.tenantId === 'b')
    expect(b?.weightShare).toBeCloseTo(5 / 6)
    expect(b?.fairShare).toBeCloseTo(1 / 3)
    expect(jainIndex).toBeCloseTo(1)
  })

  it('counts a starved tenant with backlog as 0; no index without two tenants competing', () => {
    expect(
      bulkShares([tenant('a', 40, 1), tenant('b', 0, 1, 500)], steady('a', 4, 10), 1).jainIndex,
    ).toBeCloseTo(0.5)
    expect(bulkShares([tenant('a', 0, 1, 5)], [], 1).jainIndex).toBeNull()
    const alone = bulkShares([tenant('a', 40, 1)], steady('a', 4, 10), 1)
    expect(alone.jainIndex).toBeNull()
    expect(alone.shares[0]?.share).toBe(1)
  })
})

describe('stackedRates', () => {
  it('keeps the top tenants, folds the rest into others, fills gaps, gives sends per second', () => {
    const { keys, points } = stackedRates({
      buckets: [
        { t: 100, tenantId: 'a', sent: 50 },
        { t: 105, tenantId: 'b', sent: 20 },
        { t: 105, tenantId: 'c', sent: 5 },
        { t: 105, tenantId: 'd', sent: 5 },
      ],
      first: 100,
      last: 110,
      bucketSeconds: 5,
      topN: 2,
    })
    expect(keys).toEqual(['a', 'b', 'others'])
    expect(points).toEqual([
      { t: 100, a: 10, b: 0, others: 0 },
      { t: 105, a: 0, b: 4, others: 2 },
      { t: 110, a: 0, b: 0, others: 0 },
    ])
  })
})
