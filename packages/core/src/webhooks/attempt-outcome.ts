import { DEFAULT_PARK_SETTINGS, PARKING_FAILURES, type ParkSettings, parkMs } from './park'
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, retryDelayMs } from './retry-schedule'

/** Why an attempt failed, in kinds a rule can act on (the words for people are in `error`). */
export type AttemptFailureKind =
  | 'timeout'
  | 'connection'
  | 'forbidden-address'
  | 'tls'
  | 'redirect'
  | 'status'
  | 'body-too-large'

export type AttemptResult =
  | { ok: true; statusCode: number; excerpt: string; durationMs: number }
  | {
      ok: false
      kind: AttemptFailureKind
      error: string
      statusCode?: number
      excerpt?: string
      durationMs: number
    }

export type DeliveryAfterAttempt =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed' }

export type EndpointAfterAttempt =
  /**
   * `unpark`: it was parked (or probing): its waiting deliveries become due now. `slow`: the 2xx took
   * `slowMs` or longer, so the endpoint goes on one attempt at a time until an answer comes faster.
   */
  | { health: 'answering'; unpark: boolean; slow: boolean }
  /** `park`: nobody answered; the endpoint waits until `until` (only if not parked already). */
  | { health: 'failing'; park?: { until: Date; level: number } }

export interface AttemptDecision {
  delivery: DeliveryAfterAttempt
  endpoint: EndpointAfterAttempt
}

export interface AttemptRules {
  retryScheduleMs?: readonly number[]
  park?: ParkSettings
  /** WEBHOOK_SLOW_MS: a 2xx that took this long or longer slows its endpoint; absent: none does. */
  slowMs?: number
  random?: () => number
}

/**
 * What one attempt's result does to its delivery and its endpoint. A 2xx delivers; anything else
 * retries on the schedule, or fails the delivery once the schedule is spent (a replayed delivery's
 * attempts keep counting, so a replay of a failed one that fails again is failed again). Only a
 * timeout or a refused connection parks the endpoint: an endpoint that answers 500 is up and paced by
 * its concurrency cap, one that does not answer would hold the lane's workers for the whole timeout.
 * A 2xx that was slow is pressure of the same kind, short of a failure: it delivers (the receiver has
 * the event, a resend would be a duplicate), and the endpoint is slowed rather than parked, so a
 * receiver that is slow because it is busy gets one request at a time, which is all it can take.
 */
export function decideAfterAttempt(
  input: { attempt: number; result: AttemptResult; parkLevel: number; now: Date },
  rules: AttemptRules = {},
): AttemptDecision {
  const { attempt, result, now } = input
  const random = rules.random ?? Math.random
  if (result.ok) {
    return {
      delivery: { status: 'delivered' },
      endpoint: {
        health: 'answering',
        unpark: input.parkLevel > 0,
        slow: rules.slowMs !== undefined && result.durationMs >= rules.slowMs,
      },
    }
  }
  const delayMs = retryDelayMs(attempt, rules.retryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, random)
  const delivery: DeliveryAfterAttempt =
    delayMs === null
      ? { status: 'failed' }
      : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delayMs) }
  if (!(PARKING_FAILURES as readonly string[]).includes(result.kind)) {
    return { delivery, endpoint: { health: 'failing' } }
  }
  const level = input.parkLevel + 1
  const until = new Date(now.getTime() + parkMs(level, rules.park ?? DEFAULT_PARK_SETTINGS, random))
  return { delivery, endpoint: { health: 'failing', park: { until, level } } }
}
