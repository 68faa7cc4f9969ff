import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { getUsage, usageRange } from './get-usage'
import type { UsageStore } from './ports'

const now = new Date('2026-12-06T15:00:00Z')

function fieldOf(work: () => unknown): string | undefined {
  try {
    work()
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation_failed') return error.details?.[0]?.path
    throw error
  }
  return undefined
}

describe('the usage range', () => {
  it('defaults to the last 30 days, today included, and fills a missing end', () => {
    expect(usageRange({ from: null, to: null, now })).toEqual({ from: '2026-11-07', to: '2026-12-06' })
    expect(usageRange({ from: '2026-12-01', to: null, now })).toEqual({
      from: '2026-12-01',
      to: '2026-12-06',
    })
    expect(usageRange({ from: null, to: '2026-10-30', now })).toEqual({
      from: '2026-10-01',
      to: '2026-10-30',
    })
    expect(usageRange({ from: '2026-09-06', to: '2026-12-06', now })).toEqual({
      from: '2026-09-06',
      to: '2026-12-06',
    })
  })

  it('refuses bad dates with a 400 naming the field, and more than 92 days', () => {
    expect(fieldOf(() => usageRange({ from: '2026-13-01', to: null, now }))).toBe('from')
    expect(fieldOf(() => usageRange({ from: '2026-02-30', to: null, now }))).toBe('from')
    expect(fieldOf(() => usageRange({ from: null, to: 'yesterday', now }))).toBe('to')
    expect(fieldOf(() => usageRange({ from: '2026-12-06', to: '2026-12-01', now }))).toBe('from')
    expect(fieldOf(() => usageRange({ from: '2026-09-05', to: '2026-12-06', now }))).toBe('to')
  })
})

describe('getUsage', () => {
  const store = (calls: string[]): UsageStore => ({
    acceptedDays: async () => [
      { date: '2026-12-05', lane: 'critical', accepted: 3 },
      { date: '2026-12-05', lane: 'bulk', accepted: 10 },
    ],
    outcomeDays: async () => [
      { date: '2026-12-05', lane: 'bulk', sent: 8, bounced: 1, complained: 0, suppressed: 1 },
      { date: '2026-12-06', lane: 'critical', sent: 0, bounced: 0, complained: 0, suppressed: 0 },
    ],
    quotaUsage: async () => {
      calls.push('quota')
      return { usedToday: 0, usedThisMonth: 13 }
    },
  })

  it('answers every day of the range, totals and lanes, and the quota only when the tenant has one', async () => {
    const calls: string[] = []
    const report = await getUsage(
      { tenantId: 't', from: '2026-12-04', to: '2026-12-06', quota: { daily: null, monthly: null }, now },
      { store: store(calls) },
    )
    expect(report.days.map((day) => day.date)).toEqual(['2026-12-04', '2026-12-05', '2026-12-06'])
    expect(report.days[0]).toEqual({
      date: '2026-12-04',
      accepted: 0,
      sent: 0,
      bounced: 0,
      complained: 0,
      suppressed: 0,
      lanes: {},
    })
    expect(report.days[1]).toMatchObject({ accepted: 13, sent: 8, bounced: 1, suppressed: 1 })
    expect(report.days[1]?.lanes.bulk).toEqual({
      accepted: 10,
      sent: 8,
      bounced: 1,
      complained: 0,
      suppressed: 1,
    })
    expect(report.days[1]?.lanes.critical).toMatchObject({ accepted: 3, sent: 0 })
    expect(report.quota).toBeUndefined()
    expect(calls).toEqual([])

    const withQuota = await getUsage(
      { tenantId: 't', from: null, to: null, quota: { daily: null, monthly: 1000 }, now },
      { store: store(calls) },
    )
    expect(withQuota.days).toHaveLength(30)
    expect(withQuota.quota).toEqual({ monthly: 1000, usedToday: 0, usedThisMonth: 13 })
  })
})
