import { describe, expect, it } from 'vitest'
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, parseRetrySchedule, retryDelayMs } from './retry-schedule'

describe('retryDelayMs', () => {
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const middle = () => 0.5
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, undefined, middle))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ])
    expect(retryDelayMs(8, undefined, middle)).toBeNull()
    const total = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0)
    expect(total / 3_600_000).toBeCloseTo(27.6, 1)
  })

  it('jitters within ±10 %', () => {
    expect(retryDelayMs(2, undefined, () => 0)).toBe(270_000)
    expect(retryDelayMs(2, undefined, () => 0.999999)).toBe(330_000)
  })

  it('takes a schedule of its own', () => {
    expect(retryDelayMs(1, [100, 200], () => 0.5)).toBe(100)
    expect(retryDelayMs(3, [100, 200], () => 0.5)).toBeNull()
  })

  it('refuses an attempt number below 1', () => {
    expect(() => retryDelayMs(0)).toThrow(RangeError)
  })
})

describe('parseRetrySchedule', () => {
  it('reads units', () => {
    expect(parseRetrySchedule('5s, 5m,30m,2h,250ms,10')).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 250, 10,
    ])
  })

  it('says what it could not read', () => {
    expect(parseRetrySchedule('5s,soon')).toMatch(/"soon"/)
    expect(parseRetrySchedule('0s')).toMatch(/longer than 0/)
  })
})
