import { describe, expect, it } from 'vitest'
import { parkMs } from './park'

describe('parkMs', () => {
  const settings = { baseMs: 5_000, maxMs: 60_000 }

  it('doubles each level up to the cap', () => {
    const full = () => 0
    expect([1, 2, 3, 4, 5, 50].map((level) => parkMs(level, settings, full))).toEqual([
      5_000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ])
  })

  it('shortens by at most 20 % for jitter, never lengthens', () => {
    expect(parkMs(1, settings, () => 0.999999)).toBe(4_000)
  })

  it('refuses level 0', () => {
    expect(() => parkMs(0, settings)).toThrow(RangeError)
  })
})
