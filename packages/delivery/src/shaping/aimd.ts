import { z } from 'zod'

/**
 * The rate controller of one (egress address × provider): how many messages a minute Fairlane may
 * offer that provider from that address now. Additive increase, multiplicative decrease, as TCP
 * does: a throttling reply cuts the rate at once and pauses the provider briefly, and quiet time
 * probes upward slowly, more slowly still once past the rate that was last throttled.
 *
 * Pure: the state is a plain object (it is stored in Redis as JSON), every function takes the time
 * and returns a new state, and a function that changes nothing returns the state it was given, so
 * the caller can skip the write.
 */

export interface BackoffOptions {
  /** The factor a throttle multiplies the rate by, in (0, 1): 0.5 halves it. */
  decrease: number
  /** How long a throttle stops all sending to the provider from the address. */
  pauseMs: number
  /** Messages a minute added to the rate for each minute without a throttle (outside pauses). */
  increasePerMinute: number
  /** The rate never falls below this (nor above the ceiling), so the provider is always probed. */
  minPerMinute: number
  /**
   * Throttles within this long of a cut (or before its pause ends) are the same event: the replies
   * to messages sent before the cut, still in flight (one reply round trip). Without it a burst of
   * 20 in-flight `421`s would halve the rate 20 times.
   */
  holdDownMs: number
}

export const DEFAULT_BACKOFF_OPTIONS: Readonly<BackoffOptions> = Object.freeze({
  decrease: 0.5,
  pauseMs: 15_000,
  increasePerMinute: 20,
  minPerMinute: 1,
  holdDownMs: 5_000,
})

/**
 * How much of the step is kept at or above the last throttled rate: the provider said no near
 * there once, so the probe creeps past it rather than walking into the same wall at full speed.
 */
export const STEP_FRACTION_PAST_LAST_THROTTLE = 0.5

export interface RateState {
  /** Messages a minute allowed now (outside a pause); fractional, since the increase is continuous. */
  ratePerMinute: number
  /** The receiver rules' `perMinute` for the provider: the rate never exceeds it. */
  ceilingPerMinute: number
  /** The least rate a throttle leaves: `minPerMinute`, or the ceiling when that is lower. */
  floorPerMinute: number
  /** The rate the provider last throttled at, before the cut; null when it never has. */
  lastThrottledPerMinute: number | null
  /** Nothing is sent before this time (ms since the epoch); 0 when never paused. */
  pausedUntilMs: number
  /** When the last cut happened, for the hold-down; null when never cut. */
  throttledAtMs: number | null
  /** When the rate last changed: the additive increase counts from here (or the end of a pause). */
  changedAtMs: number
}

/** The first state of an address at a provider: the full ceiling, no pause, no history. */
export function initialRate(
  limits: { perMinute: number },
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateState {
  assertOptions(options)
  const ceilingPerMinute = assertCeiling(limits.perMinute)
  return {
    ratePerMinute: ceilingPerMinute,
    ceilingPerMinute,
    floorPerMinute: Math.min(options.minPerMinute, ceilingPerMinute),
    lastThrottledPerMinute: null,
    pausedUntilMs: 0,
    throttledAtMs: null,
    changedAtMs: nowMs,
  }
}

/**
 * New limits (the rules file was reloaded): the rate stays where it is, inside the new bounds, so
 * a lowered ceiling binds at once and a raised one is reached by probing from now, not by a jump
 * worth all the time the rate sat at the old ceiling.
 */
export function withLimits(
  state: RateState,
  limits: { perMinute: number },
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateState {
  assertOptions(options)
  const ceilingPerMinute = assertCeiling(limits.perMinute)
  const floorPerMinute = Math.min(options.minPerMinute, ceilingPerMinute)
  if (ceilingPerMinute === state.ceilingPerMinute && floorPerMinute === state.floorPerMinute) return state
  const current = tick(state, nowMs, options)
  return {
    ...current,
    ceilingPerMinute,
    floorPerMinute,
    ratePerMinute: clamp(current.ratePerMinute, floorPerMinute, ceilingPerMinute),
    changedAtMs: Math.max(current.changedAtMs, nowMs),
  }
}

/**
 * The provider throttled a message from this address: cut the rate at once and pause. Within the
 * hold-down of the last cut, or before its pause has ended, it is the same event and changes
 * nothing (nor does it lengthen the pause): nothing is sent during a pause, so those replies
 * answer messages sent before the cut, and only a throttle of mail sent at the cut rate is news.
 */
export function onThrottle(
  state: RateState,
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateState {
  assertOptions(options)
  if (isSameThrottle(state, nowMs, options)) return state
  const current = tick(state, nowMs, options).ratePerMinute
  return {
    ...state,
    ratePerMinute: clamp(current * options.decrease, state.floorPerMinute, state.ceilingPerMinute),
    lastThrottledPerMinute: current,
    pausedUntilMs: Math.max(state.pausedUntilMs, nowMs + options.pauseMs),
    throttledAtMs: nowMs,
    changedAtMs: nowMs,
  }
}

/**
 * The additive increase up to `nowMs`: `increasePerMinute` for each minute since the last change
 * or the end of the pause, whichever is later, at `STEP_FRACTION_PAST_LAST_THROTTLE` of that from
 * the last throttled rate on, never past the ceiling. Calling it often or seldom gives the same
 * rate, so the pacer may call it every tick and the sender on every reply.
 */
export function tick(
  state: RateState,
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateState {
  assertOptions(options)
  const fromMs = Math.max(state.changedAtMs, state.pausedUntilMs)
  if (nowMs <= fromMs || state.ratePerMinute >= state.ceilingPerMinute) return state
  const ratePerMinute = Math.min(
    state.ceilingPerMinute,
    increased(
      state.ratePerMinute,
      (nowMs - fromMs) / 60_000,
      options.increasePerMinute,
      state.lastThrottledPerMinute,
    ),
  )
  return { ...state, ratePerMinute, changedAtMs: nowMs }
}

/** An accepted reply: the same time-based probe as `tick`, the usual moment to take it. */
export function onSuccess(
  state: RateState,
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateState {
  return tick(state, nowMs, options)
}

/** Messages a minute the address may offer the provider at `nowMs`: 0 while paused. */
export function allowedAt(
  state: RateState,
  nowMs: number,
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): number {
  if (nowMs < state.pausedUntilMs) return 0
  return tick(state, nowMs, options).ratePerMinute
}

/** A stored state read back (from Redis): checked, so a corrupt record is an error naming the field. */
export function parseRateState(input: unknown): RateState {
  const parsed = rateStateSchema.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new TypeError(`invalid rate state at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`)
  }
  const state = parsed.data
  if (state.floorPerMinute > state.ceilingPerMinute) {
    throw new TypeError('invalid rate state: floorPerMinute is above ceilingPerMinute')
  }
  return state
}

const perMinute = z.number().finite().nonnegative()

const rateStateSchema = z.strictObject({
  ratePerMinute: perMinute,
  ceilingPerMinute: perMinute,
  floorPerMinute: perMinute,
  lastThrottledPerMinute: perMinute.nullable(),
  pausedUntilMs: z.number().finite().nonnegative(),
  throttledAtMs: z.number().finite().nonnegative().nullable(),
  changedAtMs: z.number().finite().nonnegative(),
})

function isSameThrottle(state: RateState, nowMs: number, options: BackoffOptions): boolean {
  if (state.throttledAtMs === null) return false
  return nowMs < Math.max(state.throttledAtMs + options.holdDownMs, state.pausedUntilMs)
}

/** The rate after `minutes` of probing: full steps below the last throttled rate, smaller past it. */
function increased(rate: number, minutes: number, step: number, lastThrottled: number | null): number {
  const slowStep = step * STEP_FRACTION_PAST_LAST_THROTTLE
  if (lastThrottled === null) return rate + step * minutes
  if (rate >= lastThrottled) return rate + slowStep * minutes
  const minutesToLastThrottled = step > 0 ? (lastThrottled - rate) / step : Number.POSITIVE_INFINITY
  if (minutes <= minutesToLastThrottled) return rate + step * minutes
  return lastThrottled + slowStep * (minutes - minutesToLastThrottled)
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value))
}

function assertCeiling(perMinuteLimit: number): number {
  if (!(Number.isFinite(perMinuteLimit) && perMinuteLimit >= 0)) {
    throw new RangeError(`limits.perMinute must be a finite number ≥ 0, got ${perMinuteLimit}`)
  }
  return perMinuteLimit
}

function assertOptions(options: BackoffOptions): void {
  if (!(options.decrease > 0 && options.decrease < 1)) {
    throw new RangeError(`backoff decrease must be between 0 and 1 (exclusive), got ${options.decrease}`)
  }
  for (const key of ['pauseMs', 'increasePerMinute', 'minPerMinute', 'holdDownMs'] as const) {
    const value = options[key]
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`backoff ${key} must be a finite number ≥ 0, got ${value}`)
    }
  }
}
