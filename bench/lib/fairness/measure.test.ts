import { describe, expect, it } from 'vitest'
import { maxMinFairShares } from './measure'

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
