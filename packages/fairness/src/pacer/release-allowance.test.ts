import { describe, expect, it } from 'vitest'
import { allowanceCap, refilledAllowance } from './release-allowance'

describe('allowanceCap', () => {
  it('is one horizon of sends, and at least one row', () => {
    expect(allowanceCap(20, 1000)).toBe(20)
    expect(allowanceCap(20, 500)).toBe(10)
    expect(allowanceCap(0.2, 1000)).toBe(1)
    // With a burst: no further ahead than the bucket takes at once, but at least two ticks of rate.
    expect(allowanceCap(20, 1000, 5)).toBe(5)
    expect(allowanceCap(300, 1000, 10)).toBe(60)
    expect(allowanceCap(50, 1000, 100)).toBe(50)
  })
})

describe('refilledAllowance', () => {
  const base = { allowance: 2, refilledAtMs: 1000, ratePerSec: 10, cap: 10 }

  it('refills at the rate, up to the cap', () => {
    expect(refilledAllowance({ ...base, nowMs: 1300 })).toBeCloseTo(5)
    expect(refilledAllowance({ ...base, nowMs: 60_000 })).toBe(10)
  })

  it('shrinks to a lowered cap at once', () => {
    expect(refilledAllowance({ ...base, allowance: 9, nowMs: 1000, cap: 4 })).toBe(4)
  })

  it('refills nothing when the clock steps back', () => {
    expect(refilledAllowance({ ...base, nowMs: 500 })).toBe(2)
  })
})
