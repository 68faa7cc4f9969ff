import { describe, expect, it } from 'vitest'
import { jainIndex, maxInWindow, maxMinFairShares, rateViolations } from './fairness-metrics'

describe('jainIndex', () => {
  it('is 1 for equal shares, empty input and all zeros', () => {
    expect(jainIndex([5, 5, 5, 5])).toBe(1)
    expect(jainIndex([])).toBe(1)
    expect(jainIndex([0, 0, 0])).toBe(1)
  })

  it('is 1/n when one value takes everything', () => {
    expect(jainIndex([10, 0, 0, 0])).toBeCloseTo(0.25)
  })

  it('falls between the extremes for uneven shares', () => {
    // (1 + 3)² / (2 · (1 + 9)) = 16 / 20
    expect(jainIndex([1, 3])).toBeCloseTo(0.8)
  })
})

describe('maxInWindow', () => {
  it('is 0 for no events and counts unsorted input', () => {
    expect(maxInWindow([], 1000)).toBe(0)
    expect(maxInWindow([2500, 0, 900, 1800, 100], 1000)).toBe(3)
  })

  it('includes both ends of the window', () => {
    expect(maxInWindow([0, 1000], 1000)).toBe(2)
    expect(maxInWindow([0, 1000.5], 1000)).toBe(1)
  })

  it('counts simultaneous events together', () => {
    expect(maxInWindow([0, 500, 500, 500, 2000], 100)).toBe(3)
  })
})

describe('rateViolations', () => {
  const limit = { ratePerSec: 2, burst: 1 }

  it('counts each event that ends an over-full window', () => {
    // Windows ending at 0, 100, 200 hold 1, 2, 3 events; the fourth event makes 4 > 3.
    expect(rateViolations([0, 100, 200, 300], limit)).toBe(1)
    expect(rateViolations([0, 100, 200, 300, 400], limit)).toBe(2)
  })

  it('is 0 at exactly the limit and for spread-out traffic', () => {
    expect(rateViolations([0, 10, 20], limit)).toBe(0)
    expect(rateViolations([0, 400, 800, 1200, 1600, 2000], limit)).toBe(0)
  })

  it('scales the allowance with the window: burst + rate × window', () => {
    const events = [0, 100, 200, 300, 400, 500]
    // A 2 s window allows 1 + 2 × 2 = 5 events: only the sixth violates.
    expect(rateViolations(events, limit, 2000)).toBe(1)
  })
})

describe('maxMinFairShares', () => {
  it('gives every tenant its plan when capacity covers all plans', () => {
    expect(
      maxMinFairShares(1_000, [
        { ratePerSec: 300, weight: 1 },
        { ratePerSec: 100, weight: 1 },
      ]),
    ).toEqual([300, 100])
  })

  it('splits a short capacity equally among equal weights, and passes on what a capped plan leaves', () => {
    const tenants = [
      { ratePerSec: 300, weight: 1 },
      { ratePerSec: 100, weight: 1 },
      { ratePerSec: 100, weight: 1 },
      { ratePerSec: 20, weight: 1 },
    ]
    // 260/s: the 20/s tenant is capped at 20, the other three share 240 equally.
    expect(maxMinFairShares(260, tenants)).toEqual([80, 80, 80, 20])
    // 400/s: 20 + 100 + 100 capped, Big gets the remaining 180.
    expect(maxMinFairShares(400, tenants)).toEqual([180, 100, 100, 20])
  })

  it('shares by weight', () => {
    const shares = maxMinFairShares(
      800,
      [1, 1, 2, 4].map((weight) => ({ ratePerSec: 1_000, weight })),
    )
    expect(shares).toEqual([100, 100, 200, 400])
  })
})
