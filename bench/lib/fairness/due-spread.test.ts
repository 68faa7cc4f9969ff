import { describe, expect, it } from 'vitest'
import { dueAtOf, lastDueBy } from './due-spread'

describe('the many-tenants due schedule', () => {
  const schedule = { startMs: 1_000_000, tenants: 10_000, spreadSeconds: 60 }

  it('spreads the small tenants evenly from the start over the spread', () => {
    expect(dueAtOf(schedule, 1)).toBe(1_000_000)
    expect(dueAtOf(schedule, 5_001)).toBe(1_030_000)
    expect(dueAtOf(schedule, 10_000)).toBeCloseTo(1_059_994, 0)
  })

  it('names every tenant due by a moment, and only those', () => {
    expect(lastDueBy(schedule, 999_999)).toBe(0)
    expect(lastDueBy(schedule, 1_000_000)).toBe(1)
    expect(lastDueBy(schedule, 1_000_006)).toBe(2)
    expect(lastDueBy(schedule, 1_030_000)).toBe(5_001)
    expect(lastDueBy(schedule, 2_000_000)).toBe(10_000)
    for (const atMs of [1_000_000, 1_012_345, 1_059_999]) {
      const n = lastDueBy(schedule, atMs)
      expect(dueAtOf(schedule, n)).toBeLessThanOrEqual(atMs)
      if (n < schedule.tenants) expect(dueAtOf(schedule, n + 1)).toBeGreaterThan(atMs)
    }
  })

  it('makes everyone due at the start without a spread', () => {
    const once = { ...schedule, spreadSeconds: 0 }
    expect(lastDueBy(once, once.startMs)).toBe(10_000)
    expect(dueAtOf(once, 10_000)).toBe(once.startMs)
  })
})
