import { describe, expect, it } from 'vitest'
import {
  allowedAt,
  type BackoffOptions,
  DEFAULT_BACKOFF_OPTIONS,
  initialRate,
  onSuccess,
  onThrottle,
  parseRateState,
  type RateState,
  STEP_FRACTION_PAST_LAST_THROTTLE,
  tick,
  withLimits,
} from './aimd'

const MINUTE = 60_000
const options: BackoffOptions = {
  decrease: 0.5,
  pauseMs: 10_000,
  increasePerMinute: 20,
  minPerMinute: 5,
  holdDownMs: 3_000,
}

/** A state at `ratePerMinute` under `ceiling`, never throttled, last changed at `changedAtMs`. */
function at(ratePerMinute: number, ceiling = 600, changedAtMs = 0): RateState {
  return { ...initialRate({ perMinute: ceiling }, changedAtMs, options), ratePerMinute }
}

describe('initialRate', () => {
  it('starts at the ceiling, unpaused, with no throttle remembered', () => {
    const state = initialRate({ perMinute: 300 }, 1_000, options)
    expect(state).toEqual({
      ratePerMinute: 300,
      ceilingPerMinute: 300,
      floorPerMinute: 5,
      lastThrottledPerMinute: null,
      pausedUntilMs: 0,
      throttledAtMs: null,
      changedAtMs: 1_000,
    })
    expect(allowedAt(state, 1_000, options)).toBe(300)
  })

  it('keeps the floor under a ceiling lower than minPerMinute', () => {
    expect(initialRate({ perMinute: 2 }, 0, options).floorPerMinute).toBe(2)
  })

  it('refuses a negative or missing limit and bad options, naming them', () => {
    expect(() => initialRate({ perMinute: -1 }, 0, options)).toThrow(/perMinute/)
    expect(() => initialRate({ perMinute: Number.NaN }, 0, options)).toThrow(/perMinute/)
    expect(() => initialRate({ perMinute: 10 }, 0, { ...options, decrease: 1 })).toThrow(/decrease/)
    expect(() => initialRate({ perMinute: 10 }, 0, { ...options, decrease: 0 })).toThrow(/decrease/)
    expect(() => initialRate({ perMinute: 10 }, 0, { ...options, pauseMs: -1 })).toThrow(/pauseMs/)
    expect(() => onThrottle(at(10), 0, { ...options, holdDownMs: Number.NaN })).toThrow(/holdDownMs/)
  })
})

describe('onThrottle: multiplicative decrease', () => {
  it('cuts the rate at once, remembers where it was and pauses', () => {
    const state = onThrottle(at(300, 600, 60_000), 60_000, options)
    expect(state.ratePerMinute).toBe(150)
    expect(state.lastThrottledPerMinute).toBe(300)
    expect(state.pausedUntilMs).toBe(70_000)
    expect(allowedAt(state, 60_000, options)).toBe(0)
    expect(allowedAt(state, 69_999, options)).toBe(0)
    expect(allowedAt(state, 70_000, options)).toBe(150)
  })

  it('counts a burst of in-flight throttles within the hold-down as one cut', () => {
    let state = at(400, 600, 100_000)
    for (let reply = 0; reply < 20; reply++) state = onThrottle(state, 100_000 + reply * 100, options)
    expect(state.ratePerMinute).toBe(200)
    expect(state.lastThrottledPerMinute).toBe(400)
    // The later replies neither cut again nor stretch the pause.
    expect(state.pausedUntilMs).toBe(110_000)
    const same = onThrottle(state, 100_000 + options.holdDownMs - 1, options)
    expect(same).toBe(state)
  })

  it('counts a throttle during the pause as the same event, since nothing was sent in it', () => {
    const cut = onThrottle(at(400), 0, options)
    expect(onThrottle(cut, options.pauseMs - 1, options)).toBe(cut)
  })

  it('cuts again for a throttle after the pause and the hold-down', () => {
    const longHoldDown = { ...options, holdDownMs: 2 * options.pauseMs }
    const cut = onThrottle(at(400), 0, longHoldDown)
    expect(onThrottle(cut, longHoldDown.holdDownMs - 1, longHoldDown)).toBe(cut)

    let state = onThrottle(at(400), 0, options)
    state = onThrottle(state, options.pauseMs, options)
    expect(state.ratePerMinute).toBe(100)
    // The rate it was throttled at the second time: the cut rate, no probing having happened in the pause.
    expect(state.lastThrottledPerMinute).toBe(200)
    expect(state.pausedUntilMs).toBe(2 * options.pauseMs)
  })

  it('never cuts below the floor', () => {
    let state = at(40)
    // One throttle as each pause ends: no time to probe in between.
    for (let throttle = 0; throttle < 10; throttle++) {
      state = onThrottle(state, throttle * options.pauseMs, options)
    }
    expect(state.ratePerMinute).toBe(options.minPerMinute)
    expect(allowedAt(state, 10 * options.pauseMs, options)).toBe(options.minPerMinute)
  })

  it('cuts from the probed rate, not the stored one', () => {
    // Ten minutes of probing from 100 reach 300 (no throttle remembered, full steps).
    const state = onThrottle(at(100), 10 * MINUTE, options)
    expect(state.lastThrottledPerMinute).toBeCloseTo(300, 9)
    expect(state.ratePerMinute).toBeCloseTo(150, 9)
  })
})

describe('tick and onSuccess: additive increase', () => {
  it('adds increasePerMinute for each minute since the last change', () => {
    const state = at(100)
    expect(tick(state, MINUTE, options).ratePerMinute).toBeCloseTo(120, 9)
    expect(onSuccess(state, 2.5 * MINUTE, options).ratePerMinute).toBeCloseTo(150, 9)
    expect(allowedAt(state, 5 * MINUTE, options)).toBeCloseTo(200, 9)
  })

  it('gives the same rate whether called every second or once', () => {
    let often = at(100)
    for (let nowMs = 1_000; nowMs <= 10 * MINUTE; nowMs += 1_000) often = tick(often, nowMs, options)
    expect(often.ratePerMinute).toBeCloseTo(tick(at(100), 10 * MINUTE, options).ratePerMinute, 6)
  })

  it('does not increase while paused, and counts from the end of the pause', () => {
    const throttled = onThrottle(at(300), 0, options)
    expect(tick(throttled, options.pauseMs, options)).toBe(throttled)
    expect(tick(throttled, options.pauseMs - 1, options)).toBe(throttled)
    expect(tick(throttled, options.pauseMs + MINUTE, options).ratePerMinute).toBeCloseTo(170, 9)
  })

  it('probes more slowly at and past the last throttled rate', () => {
    const throttled = onThrottle(at(300), 0, options)
    const resumeMs = options.pauseMs
    // 150 → 300 at full steps takes 7.5 minutes; the next two minutes add half steps.
    const back = tick(throttled, resumeMs + 7.5 * MINUTE, options)
    expect(back.ratePerMinute).toBeCloseTo(300, 9)
    const slowStep = options.increasePerMinute * STEP_FRACTION_PAST_LAST_THROTTLE
    expect(tick(back, resumeMs + 9.5 * MINUTE, options).ratePerMinute).toBeCloseTo(300 + 2 * slowStep, 9)
    // Crossing the last throttled rate inside one call splits the time the same way.
    expect(tick(throttled, resumeMs + 9.5 * MINUTE, options).ratePerMinute).toBeCloseTo(300 + 2 * slowStep, 9)
    // Below it, full steps: one minute from 150 is 170, not 160.
    expect(tick(throttled, resumeMs + MINUTE, options).ratePerMinute).toBeCloseTo(170, 9)
  })

  it('never goes past the ceiling and then stops changing', () => {
    const state = tick(at(590, 600), 10 * MINUTE, options)
    expect(state.ratePerMinute).toBe(600)
    expect(tick(state, 20 * MINUTE, options)).toBe(state)
    expect(allowedAt(state, 60 * MINUTE, options)).toBe(600)
  })

  it('takes no time back from a clock that stepped backwards', () => {
    const state = { ...at(100), changedAtMs: 5 * MINUTE }
    expect(tick(state, MINUTE, options)).toBe(state)
  })

  it('recovers a throttled provider to its ceiling in bounded time, with the defaults', () => {
    const defaults = DEFAULT_BACKOFF_OPTIONS
    let state = onThrottle(initialRate({ perMinute: 300 }, 0, defaults), 0, defaults)
    // 150 back to 300 at 20/min per minute: 7.5 minutes after the pause (already at the last
    // throttled rate, which equals the ceiling here).
    state = tick(state, defaults.pauseMs + 8 * MINUTE, defaults)
    expect(state.ratePerMinute).toBe(300)
  })
})

describe('withLimits', () => {
  it('lowers the rate at once under a lowered ceiling', () => {
    const state = withLimits(at(500), { perMinute: 200 }, 0, options)
    expect(state.ratePerMinute).toBe(200)
    expect(state.ceilingPerMinute).toBe(200)
  })

  it('reaches a raised ceiling by probing from now, not by a jump', () => {
    // An hour at the old ceiling, then the rules raise it.
    const raised = withLimits(at(300, 300), { perMinute: 600 }, 60 * MINUTE, options)
    expect(raised.ratePerMinute).toBe(300)
    expect(allowedAt(raised, 60 * MINUTE, options)).toBe(300)
    expect(tick(raised, 61 * MINUTE, options).ratePerMinute).toBeCloseTo(320, 9)
  })

  it('returns the same state when nothing changed', () => {
    const state = at(300)
    expect(withLimits(state, { perMinute: 600 }, MINUTE, options)).toBe(state)
  })
})

describe('parseRateState', () => {
  it('reads back what was stored as JSON', () => {
    const state = onThrottle(at(300), 1_000, options)
    expect(parseRateState(JSON.parse(JSON.stringify(state)))).toEqual(state)
  })

  it('refuses a corrupt record, naming the field', () => {
    const state = at(300)
    expect(() => parseRateState({ ...state, ratePerMinute: 'fast' })).toThrow(/ratePerMinute/)
    expect(() => parseRateState({ ...state, pausedUntilMs: -5 })).toThrow(/pausedUntilMs/)
    expect(() => parseRateState({ ...state, extra: 1 })).toThrow(/extra|unrecognized/i)
    expect(() => parseRateState({ ...state, floorPerMinute: 700 })).toThrow(/floorPerMinute/)
    expect(() => parseRateState(null)).toThrow(/rate state/)
  })
})
