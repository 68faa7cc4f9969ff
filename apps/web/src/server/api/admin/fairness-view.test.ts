import { describe, expect, it } from 'vitest'
import { bulkShares, stackedRates } from './fairness-view'

const tenant = (tenantId: string, sent: number, weight: number, backlog = 0) => ({
  tenantId,
  name: tenantId,
  weight,
  ratePerSec: 10,
  sent,
  backlog,
})

describe('bulkShares', () => {
  it('is 1 when every competing tenant got its weight’s part of a lane short of their plans', () => {
    // 40 sends in 4 s: 10/s, shared 3:1 by weight between two tenants whose plans (10/s) each allow more.
    const { shares, jainIndex } = bulkShares(
      [tenant('a', 30, 3), tenant('b', 10, 1), tenant('idle', 0, 5)],
      4,
    )
    expect(shares.map((s) => [s.tenantId, s.share, s.weightShare, s.fairShare])).toEqual([
      ['a', 0.75, 0.75, 0.75],
      ['b', 0.25, 0.25, 0.25],
    ])
    expect(jainIndex).toBeCloseTo(1)
  })

  it('does not count a tenant held back by its own plan as short-changed', () => {
    // 60 sends in 2 s; b's plan allows 10/s, so 20 is all it may have: a fair lane gives a the other 40.
    const { shares, jainIndex } = bulkShares(
      [{ ...tenant('a', 40, 1, 100), ratePerSec: 100 }, tenant('b', 20, 5, 100)],
      2,
    )
    const b = shares.find((s) => s.tenantId === 'b')
    expect(b?.weightShare).toBeCloseTo(5 / 6)
    expect(b?.fairShare).toBeCloseTo(1 / 3)
    expect(jainIndex).toBeCloseTo(1)
  })

  it('counts a starved tenant with backlog as 0, and is null with nothing sent', () => {
    expect(bulkShares([tenant('a', 40, 1), tenant('b', 0, 1, 500)], 10).jainIndex).toBeCloseTo(0.5)
    expect(bulkShares([tenant('a', 0, 1, 5)], 10).jainIndex).toBeNull()
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
