import { describe, expect, it } from 'vitest'
import { warmupDailyCap } from '../receivers/warmup'
import {
  NEW_ADDRESS_WARMUP,
  recordSendingDay,
  sendingDaysBefore,
  utcDay,
  type WarmupProgress,
} from './warmup'

/** The rules file's warm-up: 50, 100, 500, 1,000 a day per provider, warm from the fifth sending day. */
const warmup = {
  schedule: [
    { day: 1, perDayPerProvider: 50 },
    { day: 2, perDayPerProvider: 100 },
    { day: 3, perDayPerProvider: 500 },
    { day: 4, perDayPerProvider: 1_000 },
  ],
  warmAfterDay: 5,
  addresses: ['127.0.0.2'],
}
const capOn = (progress: WarmupProgress, today: string) =>
  warmupDailyCap(warmup, sendingDaysBefore(progress, today) + 1) ?? Number.POSITIVE_INFINITY

describe('warm-up over sending days', () => {
  it('grows only on days the address sent, not on calendar days', () => {
    // Sends on the 1st, idles the 2nd to the 4th, sends on the 5th and the 6th.
    const sentOn = new Set(['2026-12-01', '2026-12-05', '2026-12-06'])
    const capByDay: Record<string, number> = {}
    let progress = NEW_ADDRESS_WARMUP
    for (let date = 1; date <= 7; date++) {
      const today = `2026-12-0${date}`
      capByDay[today] = capOn(progress, today)
      if (sentOn.has(today)) {
        // Several sends in a day count it once, and the cap does not move under the day's feet.
        for (let send = 0; send < 3; send++) progress = recordSendingDay(progress, today)
        expect(capOn(progress, today)).toBe(capByDay[today])
      }
    }
    expect(capByDay).toEqual({
      '2026-12-01': 50,
      '2026-12-02': 100,
      '2026-12-03': 100,
      '2026-12-04': 100,
      '2026-12-05': 100,
      '2026-12-06': 500,
      '2026-12-07': 1_000,
    })
    expect(progress).toEqual({ sendingDays: 3, lastSendingDay: '2026-12-06' })
  })

  it('ignores a late record of an earlier day', () => {
    const progress = recordSendingDay(recordSendingDay(NEW_ADDRESS_WARMUP, '2026-12-02'), '2026-12-03')
    expect(recordSendingDay(progress, '2026-12-01')).toBe(progress)
  })

  it('takes days as UTC dates and refuses anything else', () => {
    expect(utcDay(Date.UTC(2026, 11, 6, 23, 59))).toBe('2026-12-06')
    expect(() => recordSendingDay(NEW_ADDRESS_WARMUP, '6/12/2026')).toThrow(/YYYY-MM-DD/)
    expect(() => sendingDaysBefore(NEW_ADDRESS_WARMUP, 'today')).toThrow(/YYYY-MM-DD/)
  })
})
