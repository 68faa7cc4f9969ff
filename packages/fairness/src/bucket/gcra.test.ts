import { describe, expect, it } from 'vitest'
import { maxInWindow, rateViolations } from '../metrics/fairness-metrics'
import { seededRandom } from '../test-support/seeded-random'
import {
  type BucketPlan,
  decide,
  deferralDelayMs,
  emissionIntervalMs,
  enforcedPlan,
  HANDOFF_RESERVE_MS,
  reserveDeferralSlot,
} from './gcra'

/** The times of the tokens a bucket gives a flood that asks as often as it can over `forMs`. */
function floodTokens(plan: BucketPlan, forMs: number): number[] {
  let tat: number | null = null
  const tokens: number[] = []
  for (let now = 0; now < forMs; now += 1) {
    for (let decision = decide(tat, now, plan); decision.allowed; decision = decide(tat, now, plan)) {
      tat = decision.tatMs
      tokens.push(now)
    }
  }
  return tokens
}

/** Feeds arrivals (sorted) through one bucket and returns the times of the allowed takes. */
function allowedTimes(arrivalsMs: number[], plan: BucketPlan): number[] {
  let tat: number | null = null
  const allowed: number[] = []
  for (const now of arrivalsMs) {
    const decision = decide(tat, now, plan)
    if (decision.allowed) allowed.push(now)
    tat = decision.tatMs
  }
  return allowed
}

/** Bursts of up to 40 requests at one instant or spread over a few ms, separated by random gaps. */
function burstyArrivals(random: () => number, durationMs: number): number[] {
  const arrivals: number[] = []
  for (let now = 0; now < durationMs; now += random() * 400) {
    const size = 1 + Math.floor(random() * 40)
    const spreadMs = random() < 0.5 ? 0 : random() * 30
    for (let i = 0; i < size; i++) arrivals.push(now + random() * spreadMs)
  }
  return arrivals.sort((a, b) => a - b)
}

describe('decide', () => {
  const plan = { ratePerSec: 10, burst: 3 }

  it('lets a full bucket serve its burst at once, then refuses with the time to the next token', () => {
    let tat: number | null = null
    for (let i = 0; i < 3; i++) {
      const decision = decide(tat, 1000, plan)
      expect(decision.allowed).toBe(true)
      tat = decision.tatMs
    }
    expect(decide(tat, 1000, plan)).toEqual({ allowed: false, tatMs: 1300, retryAfterMs: 100 })
    expect(decide(tat, 1040, plan)).toEqual({ allowed: false, tatMs: 1300, retryAfterMs: 60 })
    expect(decide(tat, 1100, plan)).toEqual({ allowed: true, tatMs: 1400 })
  })

  it('spends nothing on a refusal', () => {
    const refused = decide(5000, 1000, plan)
    expect(refused.allowed).toBe(false)
    expect(refused.tatMs).toBe(5000)
  })

  it('treats a tat in the past as a full bucket', () => {
    expect(decide(0, 10_000, plan)).toEqual({ allowed: true, tatMs: 10_100 })
  })

  it.each([
    { ratePerSec: 50, burst: 10 },
    { ratePerSec: 3, burst: 1 },
    { ratePerSec: 2.5, burst: 4 },
    { ratePerSec: 200, burst: 1 },
  ])(
    'never allows more than burst + rate × W in any window W, under bursty random traffic ($ratePerSec/s, burst $burst)',
    (bucket) => {
      const random = seededRandom(Math.round(bucket.ratePerSec * 100 + bucket.burst))
      const allowed = allowedTimes(burstyArrivals(random, 20_000), bucket)
      for (const windowMs of [1, 100, 1000, 3000]) {
        const bound = Math.floor(bucket.burst + (bucket.ratePerSec * windowMs) / 1000)
        expect(maxInWindow(allowed, windowMs)).toBeLessThanOrEqual(bound)
      }
    },
  )

  it.each([
    { ratePerSec: 50, burst: 10 },
    { ratePerSec: 4, burst: 1 },
    { ratePerSec: 2.5, burst: 4 },
    { ratePerSec: 200, burst: 1 },
  ])(
    'reaches the bound under constant overload and sustains the rate ($ratePerSec/s, burst $burst)',
    (bucket) => {
      // Requests every millisecond, with intervals that are whole milliseconds, so no token is missed by rounding.
      const arrivals = Array.from({ length: 10_000 }, (_, i) => i)
      const allowed = allowedTimes(arrivals, bucket)
      expect(maxInWindow(allowed, 1000)).toBe(Math.floor(bucket.ratePerSec + bucket.burst))
      // Over the 10 s run: the burst plus one token per interval, none lost.
      expect(allowed.length).toBe(Math.floor(bucket.burst + (bucket.ratePerSec * 9999) / 1000))
    },
  )

  it.each([
    { ratePerSec: 50, burst: 1 },
    { ratePerSec: 3, burst: 1 },
    { ratePerSec: 7, burst: 5 },
  ])('never refuses a steady stream at exactly the rate ($ratePerSec/s, burst $burst)', (bucket) => {
    const interval = emissionIntervalMs(bucket.ratePerSec)
    const arrivals: number[] = []
    for (let now = 1_700_000_000_000, i = 0; i < 5000; i++, now += interval) arrivals.push(now)
    expect(allowedTimes(arrivals, bucket)).toHaveLength(arrivals.length)
  })
})

describe('reserveDeferralSlot', () => {
  it('gives the first deferred job the next token and later ones successive intervals', () => {
    const first = reserveDeferralSlot({ nextTokenAtMs: 1000, lastReservedAtMs: null, ratePerSec: 10 })
    expect(first).toEqual({ slotAtMs: 1000, position: 1 })
    const second = reserveDeferralSlot({ nextTokenAtMs: 1000, lastReservedAtMs: 1000, ratePerSec: 10 })
    expect(second).toEqual({ slotAtMs: 1100, position: 2 })
  })

  it('does not count slots already used: once deferred jobs took their tokens, positions fall back', () => {
    // Slots up to 1300 were reserved; three of them were taken, so the next token is now due at 1300.
    expect(reserveDeferralSlot({ nextTokenAtMs: 1300, lastReservedAtMs: 1300, ratePerSec: 10 })).toEqual({
      slotAtMs: 1400,
      position: 2,
    })
    // Reservations that lie in the past are ignored.
    expect(reserveDeferralSlot({ nextTokenAtMs: 5000, lastReservedAtMs: 1300, ratePerSec: 10 })).toEqual({
      slotAtMs: 5000,
      position: 1,
    })
  })
})

describe('deferralDelayMs', () => {
  const base = { retryAfterMs: 120, ratePerSec: 10 }

  it('lands at or after the next token, within one interval of its slot', () => {
    expect(deferralDelayMs({ ...base, position: 1, random: () => 0 })).toBe(120)
    expect(deferralDelayMs({ ...base, position: 1, random: () => 0.999 })).toBeLessThanOrEqual(220)
    expect(deferralDelayMs({ ...base, retryAfterMs: 0.2, position: 1, random: () => 0 })).toBe(1)
  })

  it('grows with the position, one interval per place, whatever the jitter', () => {
    const random = seededRandom(7)
    let previous = 0
    for (let position = 1; position <= 50; position++) {
      const delay = deferralDelayMs({ ...base, position, random })
      expect(delay).toBeGreaterThanOrEqual(120 + (position - 1) * 100)
      expect(delay).toBeGreaterThanOrEqual(previous)
      previous = delay
    }
  })

  it('spreads jobs with the same position over the interval instead of one instant', () => {
    const random = seededRandom(11)
    const delays = Array.from({ length: 200 }, () => deferralDelayMs({ ...base, position: 3, random }))
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(320)
    expect(Math.max(...delays)).toBeLessThanOrEqual(420)
    expect(new Set(delays).size).toBeGreaterThan(50)
  })
})

describe('enforcedPlan', () => {
  it('keeps 100 ms of the rate out of the burst', () => {
    expect(enforcedPlan({ ratePerSec: 100, burst: 20 })).toEqual({ ratePerSec: 100, burst: 10 })
    expect(enforcedPlan({ ratePerSec: 1_000, burst: 1_000 })).toEqual({ ratePerSec: 1_000, burst: 900 })
    expect(enforcedPlan({ ratePerSec: 7, burst: 10 }, 100)).toEqual({ ratePerSec: 7, burst: 9 })
  })

  it('never goes below one token, so a tenant can always send', () => {
    expect(enforcedPlan({ ratePerSec: 100, burst: 5 })).toEqual({ ratePerSec: 100, burst: 1 })
    expect(enforcedPlan({ ratePerSec: 1, burst: 1 })).toEqual({ ratePerSec: 1, burst: 1 })
  })

  it('holds rate + burst in every 1 s window at the receiving end when sends land up to the reserve later', () => {
    // A flood at a 100/s plan with burst 20: the tokens its bucket allows over 5 s, each arriving at
    // the receiving end when taken, except the opening burst's, held up by the whole reserve — the
    // worst case: late arrivals from before a window's start crowd into it.
    const plan = { ratePerSec: 100, burst: 20 }
    const arrivals = (bucket: BucketPlan) =>
      floodTokens(bucket, 5_000).map((atMs, index) => atMs + (index < plan.burst ? HANDOFF_RESERVE_MS : 0))
    expect(rateViolations(arrivals(enforcedPlan(plan)), plan)).toBe(0)
    // Enforcing the plan's own burst, the same delays show above the plan.
    expect(rateViolations(arrivals(plan), plan)).toBeGreaterThan(0)
  })
})
