import type { RateController } from '../receiver-gate'
import type { ProviderLimits } from '../receivers/rules'
import {
  allowedAt,
  type BackoffOptions,
  DEFAULT_BACKOFF_OPTIONS,
  initialRate,
  onThrottle,
  parseRateState,
  type RateState,
  withLimits,
} from './aimd'

/**
 * The AIMD controller (`aimd.ts`) as the receiver gate asks it, with the rules file's back-off. The
 * provider's limits are applied on every use, so a rules file reloaded with a new ceiling binds at
 * once on states written before it.
 */
export function aimdRateController(
  options: BackoffOptions = DEFAULT_BACKOFF_OPTIONS,
): RateController<RateState> {
  const bounded = (state: RateState, limits: ProviderLimits, nowMs: number) =>
    withLimits(state, limits, nowMs, options)
  return {
    initial: (limits, nowMs) => initialRate(limits, nowMs, options),
    parse: parseRateState,
    perMinute: (state, limits, nowMs) => allowedAt(bounded(state, limits, nowMs), nowMs, options),
    pausedUntil: (state) => (state.pausedUntilMs > 0 ? state.pausedUntilMs : null),
    onThrottle: (state, limits, nowMs) => onThrottle(bounded(state, limits, nowMs), nowMs, options),
  }
}
