import { describe, expect, it } from 'vitest'
import {
  bothBackloggedUntil,
  jainByWeight,
  ledgerOf,
  percentileCountingUndelivered,
  throttledShareBetween,
} from './measure'

describe('jainByWeight', () => {
  it('is 1 when each tenant got its weighted share', () => {
    expect(
      jainByWeight([
        { count: 100, weight: 1 },
        { count: 200, weight: 2 },
      ]),
    ).toBe(1)
  })
  it('is 1/n when one tenant took everything', () => {
    expect(
      jainByWeight([
        { count: 300, weight: 1 },
        { count: 0, weight: 1 },
      ]),
    ).toBe(0.5)
  })
  it('reads an even split as unfair to the heavier tenant', () => {
    // Shares 100 and 50 per unit of weight: (150)² / (2 × 12,500) = 0.9.
    expect(
      jainByWeight([
        { count: 100, weight: 1 },
        { count: 100, weight: 2 },
      ]),
    ).toBeCloseTo(0.9, 10)
  })
  it('refuses a weight of 0, naming it', () => {
    expect(() => jainByWeight([{ count: 1, weight: 0 }])).toThrow(/weight must be above 0, got 0/)
  })
})

describe('bothBackloggedUntil', () => {
  it('ends at the last delivery of the first tenant to run out of mail', () => {
    const a = { deliveredAt: [1_000, 2_000, 3_000], total: 10 }
    const b = { deliveredAt: [1_500, 4_000], total: 2 }
    expect(bothBackloggedUntil([a, b], 9_000)).toBe(4_000)
  })
  it('is the end of the run while everyone still has mail waiting', () => {
    expect(bothBackloggedUntil([{ deliveredAt: [5], total: 2 }], 9_000)).toBe(9_000)
  })
})

describe('throttledShareBetween', () => {
  it('counts only what happened between the readings', () => {
    expect(throttledShareBetween({ attempts: 100, throttled: 60 }, { attempts: 300, throttled: 62 })).toBe(
      0.01,
    )
  })
  it('is null without attempts, and refuses counters that went backwards', () => {
    expect(throttledShareBetween({ attempts: 5, throttled: 1 }, { attempts: 5, throttled: 1 })).toBeNull()
    expect(() => throttledShareBetween({ attempts: 5, throttled: 1 }, { attempts: 2, throttled: 0 })).toThrow(
      /backwards/,
    )
  })
})

describe('ledgerOf', () => {
  it('sorts accepted messages into delivered, waiting, failed and lost, and counts duplicates', () => {
    const ledger = ledgerOf(
      [
        { id: 'delivered-twice', status: 'sent', lastError: null },
        { id: 'delivered-marked-sending', status: 'sending', lastError: null },
        { id: 'waiting', status: 'queued', lastError: '421 4.7.28 slow down' },
        { id: 'failed-4xx', status: 'failed', lastError: '421 4.7.28 slow down' },
        { id: 'failed-5xx', status: 'failed', lastError: '550 5.1.1 no such user' },
        { id: 'sent-not-received', status: 'sent', lastError: null },
      ],
      new Map([
        ['delivered-twice', 2],
        ['delivered-marked-sending', 1],
      ]),
    )
    expect(ledger).toEqual({
      accepted: 6,
      delivered: 2,
      waiting: 1,
      failed: 2,
      failedFor4xx: 1,
      lost: 1,
      duplicates: 1,
    })
  })
})

describe('percentileCountingUndelivered', () => {
  it('is the plain percentile when everything was delivered', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentileCountingUndelivered(latencies, 100, 95)).toBe(95)
  })
  it('counts the undelivered as the slowest', () => {
    const latencies = Array.from({ length: 96 }, (_, i) => i + 1)
    expect(percentileCountingUndelivered(latencies, 100, 95)).toBe(95)
    expect(percentileCountingUndelivered(latencies.slice(0, 94), 100, 95)).toBeNull()
  })
  it('refuses more deliveries than messages', () => {
    expect(() => percentileCountingUndelivered([1, 2], 1, 95)).toThrow(/2 delivered of only 1/)
  })
})
