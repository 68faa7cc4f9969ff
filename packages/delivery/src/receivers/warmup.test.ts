import { describe, expect, it } from 'vitest'
import { parseReceiverRules } from './rules'
import { warmupDailyCap } from './warmup'

describe('warmupDailyCap', () => {
  const warmup = parseReceiverRules({
    providers: [],
    default: { limits: { connections: 2, messagesPerConnection: 20, perMinute: 60 } },
    warmup: {
      schedule: [
        { day: 1, perDayPerProvider: 200 },
        { day: 3, perDayPerProvider: 1000 },
      ],
      warmAfterDay: 10,
    },
    criticalReserve: 0.1,
    backoff: { decrease: 0.5, pauseMs: 60_000, increasePerMinute: 10, minPerMinute: 6 },
  }).warmup

  it('holds each step until the next, and lifts the cap once the address is warm', () => {
    expect([1, 2, 3, 9, 10, 400].map((day) => warmupDailyCap(warmup, day))).toEqual([
      200,
      200,
      1000,
      1000,
      undefined,
      undefined,
    ])
  })

  it('refuses a day that is not a sending day', () => {
    expect(() => warmupDailyCap(warmup, 0)).toThrow(
      'sendingDay: expected a whole number of at least 1, got 0',
    )
    expect(() => warmupDailyCap(warmup, 1.5)).toThrow(RangeError)
  })
})
