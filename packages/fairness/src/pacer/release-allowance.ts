/**
 * How many rows the pacer may still release for a tenant: a token bucket kept in the leader's memory,
 * refilled at the tenant's `ratePerSec` and capped at `ratePerSec × horizonMs / 1000` (at least one
 * row), and at the tenant's burst when it is known. Releasing no faster than the tenant may send keeps the bulk queue from filling with jobs that
 * the worker's Redis bucket would only defer again; the horizon is how far ahead of the send rate the
 * queue is allowed to run, so a tenant never has more than about one horizon of sends waiting in it.
 */

export function allowanceCap(ratePerSec: number, horizonMs: number, burst?: number): number {
  const horizon = (ratePerSec * horizonMs) / 1000
  if (burst === undefined) return Math.max(1, horizon)
  // No further ahead than the tenant's bucket can take at once (its burst), so the jobs released
  // are sent, not deferred — but never below two ticks' worth of its rate, or the cap itself
  // would hold the tenant under its plan.
  return Math.max(1, Math.min(horizon, Math.max(burst, (ratePerSec * MIN_AHEAD_MS) / 1000)))
}

/** The least a tenant's releases may run ahead of its rate when its burst is small: two pacer ticks. */
export const MIN_AHEAD_MS = 200

/**
 * The allowance after refilling from `refilledAtMs` to `nowMs` at the current rate, under the current
 * cap: a lowered rate shrinks the cap, and so the allowance, at once. A clock that stepped back
 * (a new leader with a different clock) refills nothing rather than draining.
 */
export function refilledAllowance(input: {
  allowance: number
  refilledAtMs: number
  nowMs: number
  ratePerSec: number
  cap: number
}): number {
  const elapsedMs = Math.max(0, input.nowMs - input.refilledAtMs)
  return Math.min(input.cap, input.allowance + (input.ratePerSec * elapsedMs) / 1000)
}
