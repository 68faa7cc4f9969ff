import type { ReceiverRates } from '@fairlane/core/receivers'
import type { ReceiverRules } from '@fairlane/delivery/receivers/rules'
import { DEFAULT_BACKOFF_OPTIONS, parseRateState } from '@fairlane/delivery/shaping/aimd'
import { aimdRateController } from '@fairlane/delivery/shaping/rate-controller'

/**
 * The rate controller's reading of a stored state, under the rules file's ceilings and back-off, as
 * the worker's receiver gate reads it: the console shows the rate the gate allows, not a guess.
 */
export function receiverRatesFrom(rules: ReceiverRules): ReceiverRates {
  const controller = aimdRateController({ ...DEFAULT_BACKOFF_OPTIONS, ...rules.backoff })
  const limitsOf = (provider: string) =>
    rules.providers.find((rule) => rule.name === provider)?.limits ?? rules.default.limits
  return {
    ceilingOf: (provider) => limitsOf(provider).perMinute,
    rateOf({ provider, state, nowMs }) {
      const parsed = parseRateState(state)
      const limits = limitsOf(provider)
      return {
        ratePerMinute: controller.perMinute(parsed, limits, nowMs),
        ceilingPerMinute: limits.perMinute,
        lastThrottledPerMinute: parsed.lastThrottledPerMinute,
        pausedUntilMs: parsed.pausedUntilMs,
      }
    },
  }
}
