import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { admitByQuota, decideQuota, nextUtcDay, nextUtcMonth, utcDay, utcMonthStart } from './admit-by-quota'

const at = new Date('2026-12-31T23:59:30.000Z')

describe('quotas', () => {
  it('uses UTC days and calendar months, whatever the hour', () => {
    expect(utcDay(at)).toBe('2026-12-31')
    expect(utcMonthStart(at)).toBe('2026-12-01')
    expect(nextUtcDay(at).toISOString()).toBe('2027-01-01T00:00:00.000Z')
    expect(nextUtcMonth(at).toISOString()).toBe('2027-01-01T00:00:00.000Z')
    expect(nextUtcMonth(new Date('2026-01-31T12:00:00Z')).toISOString()).toBe('2026-02-01T00:00:00.000Z')
  })

  it('lets a message in while the day and the month have room, and not one more', () => {
    const quota = { daily: 10, monthly: 100 }
    expect(decideQuota(quota, { usedToday: 9, usedThisMonth: 50 }, at)).toEqual({ allowed: true })
    expect(decideQuota(quota, { usedToday: 10, usedThisMonth: 50 }, at)).toMatchObject({
      allowed: false,
      which: 'daily',
    })
    expect(decideQuota(quota, { usedToday: 0, usedThisMonth: 100 }, at)).toMatchObject({
      allowed: false,
      which: 'monthly',
    })
    expect(decideQuota({ daily: null, monthly: null }, { usedToday: 1e9, usedThisMonth: 1e9 }, at)).toEqual({
      allowed: true,
    })
    expect(decideQuota({ daily: 0, monthly: null }, { usedToday: 0, usedThisMonth: 0 }, at).allowed).toBe(
      false,
    )
  })

  it('counts a batch as a whole', () => {
    expect(decideQuota({ daily: 10, monthly: null }, { usedToday: 5, usedThisMonth: 5 }, at, 5).allowed).toBe(
      true,
    )
    expect(decideQuota({ daily: 10, monthly: null }, { usedToday: 5, usedThisMonth: 5 }, at, 6).allowed).toBe(
      false,
    )
  })

  it('names the later reset when both are full: the monthly', () => {
    const decision = decideQuota(
      { daily: 1, monthly: 1 },
      { usedToday: 1, usedThisMonth: 1 },
      new Date('2026-12-06T10:00:00Z'),
    )
    expect(decision).toEqual({ allowed: false, which: 'monthly', resetAt: new Date('2027-01-01T00:00:00Z') })
  })

  it('refuses with 429 quota, Retry-After until the reset and resetAt', () => {
    const now = new Date('2026-12-06T23:00:00Z')
    let caught: unknown
    try {
      admitByQuota({ quota: { daily: 3, monthly: null }, usage: { usedToday: 3, usedThisMonth: 3 }, now })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AppError)
    const error = caught as AppError
    expect(error.code).toBe('rate_limited')
    expect(error.limit).toBe('quota')
    expect(error.retryAfterSeconds).toBe(3_600)
    expect(error.resetAt?.toISOString()).toBe('2026-12-07T00:00:00.000Z')
    expect(error.message).toContain('daily')
  })
})
