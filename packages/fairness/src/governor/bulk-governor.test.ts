import { describe, expect, it } from 'vitest'
import {
  createLatencyWindow,
  DEFAULT_GOVERNOR_SETTINGS,
  decodeGovernorHistory,
  encodeGovernorPeriod,
  governed,
  nextGovernorFactor,
  quantileOf,
} from './bulk-governor'

const settings = { ...DEFAULT_GOVERNOR_SETTINGS, targetMs: 150 }

describe('nextGovernorFactor', () => {
  it('halves bulk while the critical p95 is over target, down to the floor', () => {
    expect(nextGovernorFactor(1, 400, settings)).toBe(0.5)
    expect(nextGovernorFactor(0.5, 400, settings)).toBe(0.25)
    expect(nextGovernorFactor(0.15, 400, settings)).toBe(0.1)
    expect(nextGovernorFactor(0.1, 400, settings)).toBe(0.1)
  })

  it('gives bulk back a step at a time once the p95 is well under target, up to 1', () => {
    expect(nextGovernorFactor(0.25, 50, settings)).toBe(0.35)
    expect(nextGovernorFactor(0.95, 50, settings)).toBe(1)
    expect(nextGovernorFactor(1, 50, settings)).toBe(1)
  })

  it('holds between the recovery line and the target (no flapping around the target)', () => {
    expect(nextGovernorFactor(0.5, 130, settings)).toBe(0.5)
    expect(nextGovernorFactor(0.5, 150, settings)).toBe(0.5)
  })

  it('recovers when no critical mail was sent in the period', () => {
    expect(nextGovernorFactor(0.5, undefined, settings)).toBe(0.6)
  })

  it('repairs a factor out of range before stepping', () => {
    expect(nextGovernorFactor(7, 130, settings)).toBe(1)
    expect(nextGovernorFactor(0, 130, settings)).toBe(0.1)
  })
})

describe('quantileOf', () => {
  it('takes the nearest rank', () => {
    const samples = Array.from({ length: 100 }, (_, index) => index + 1)
    expect(quantileOf(samples, 0.95)).toBe(95)
    expect(quantileOf([30, 10, 20], 0.95)).toBe(30)
    expect(quantileOf([42], 0.5)).toBe(42)
    expect(quantileOf([], 0.95)).toBeUndefined()
  })
})

describe('createLatencyWindow', () => {
  it('forgets samples older than the window', () => {
    const window = createLatencyWindow({ windowMs: 10_000, maxSamples: 1_000 })
    window.record(0, 900)
    window.record(5_000, 20)
    expect(window.p95(9_000)).toBe(900)
    expect(window.p95(10_500)).toBe(20)
    expect(window.p95(20_000)).toBeUndefined()
  })

  it('keeps at most maxSamples, dropping the oldest', () => {
    const window = createLatencyWindow({ windowMs: 60_000, maxSamples: 3 })
    for (const latency of [1_000, 1_000, 10, 10, 10]) window.record(1, latency)
    expect(window.p95(2)).toBe(10)
  })
})

describe('governed', () => {
  it('scales a size by the factor and never to zero', () => {
    expect(governed(20, 1)).toBe(20)
    expect(governed(20, 0.5)).toBe(10)
    expect(governed(20, 0.01)).toBe(1)
    expect(governed(300, 0.1)).toBe(30)
  })
})

describe('governor history', () => {
  it('round-trips periods, oldest first, and skips entries it cannot read', () => {
    const periods = [
      { t: 1_000, factor: 1, p95Ms: null },
      { t: 2_000, factor: 0.5, p95Ms: 612.5 },
    ]
    // LPUSH leaves the newest first.
    const stored = [...periods].reverse().map(encodeGovernorPeriod)
    expect(decodeGovernorHistory([...stored, 'garbage', ':'])).toEqual(periods)
  })
})
