import { describe, expect, it } from 'vitest'
import { type BucketSends, competedShares } from './competed-shares'

/** `perSecond` sends a second for each of `seconds` seconds from `from`, one bucket a second. */
function steady(tenantId: string, perSecond: number, from: number, seconds: number): BucketSends[] {
  return Array.from({ length: seconds }, (_, i) => ({ tenantId, t: from + i, sent: perSecond }))
}

describe('competedShares', () => {
  it('calls two tenants at their own plans’ full rates fair, however much idle time the window has', () => {
    // The reported case: 10/s and 50/s plans, each sending at its plan for 60 s of a 180 s window.
    const result = competedShares({
      buckets: [...steady('ten', 10, 0, 60), ...steady('fifty', 50, 0, 60)],
      plans: [
        { tenantId: 'ten', weight: 1, ratePerSec: 10 },
        { tenantId: 'fifty', weight: 1, ratePerSec: 50 },
      ],
      bucketSeconds: 1,
    })
    expect(result.jainIndex).toBeCloseTo(1, 6)
    expect(result.competedSeconds).toBe(60)
    expect(result.shares).toEqual(
      expect.arrayContaining([
        { tenantId: 'ten', sent: 600, fair: 600 },
        { tenantId: 'fifty', sent: 3000, fair: 3000 },
      ]),
    )
  })

  it('sees a lane that favours one of two backlogged tenants of equal weight', () => {
    const result = competedShares({
      buckets: [...steady('a', 90, 0, 10), ...steady('b', 10, 0, 10)],
      plans: [
        { tenantId: 'a', weight: 1, ratePerSec: 1000 },
        { tenantId: 'b', weight: 1, ratePerSec: 1000 },
      ],
      bucketSeconds: 1,
    })
    // Owed 50 each a second: 90/50 and 10/50 → (1.8 + 0.2)² / (2 × (3.24 + 0.04)) = 4 / 6.56.
    expect(result.jainIndex).toBeCloseTo(4 / 6.56, 6)
  })

  it('judges only seconds with two or more competitors, and is null when there were none', () => {
    const alone = competedShares({
      buckets: [...steady('a', 50, 0, 30), ...steady('b', 10, 100, 30)],
      plans: [
        { tenantId: 'a', weight: 1, ratePerSec: 100 },
        { tenantId: 'b', weight: 1, ratePerSec: 100 },
      ],
      bucketSeconds: 1,
    })
    expect(alone).toEqual({ shares: [], competedSeconds: 0, jainIndex: null })
  })

  it('counts a tenant with mail waiting and nothing sent as starved', () => {
    const result = competedShares({
      buckets: steady('a', 40, 0, 10),
      plans: [
        { tenantId: 'a', weight: 1, ratePerSec: 100 },
        { tenantId: 'b', weight: 1, ratePerSec: 100 },
      ],
      bucketSeconds: 1,
      waiting: new Set(['b']),
    })
    expect(result.jainIndex).toBeCloseTo(0.5, 6)
  })
})
