/**
 * A tenant's send bucket as GCRA (generic cell rate algorithm). The whole state is one number,
 * `tat`, the theoretical arrival time: when the bucket would be full again. Each token pushes `tat`
 * one emission interval `T = 1000 / ratePerSec` ms ahead; a take is allowed while `tat` stays within
 * `(burst − 1) × T` of now. Hence at most `burst + ratePerSec × W / 1000` takes in any window of W ms,
 * exactly, with no window edges to exploit, and a stream at exactly the rate is never refused.
 *
 * Why not rate-limiter-flexible's RateLimiterRedis (used for API limits in apps/web): it counts in a
 * fixed window that starts at the first request and expires with whole-second TTLs
 * (`Math.floor(msDuration / 1000)` and `SET … EX` in lib/RateLimiterRedis.js), so it lets up to twice
 * its points through across a window edge and cannot express a sub-second window at all.
 *
 * This file is the reference the Lua in `scripts.ts` mirrors; its tests prove the properties.
 */

export interface BucketPlan {
  ratePerSec: number
  /** Takes allowed at once from a full bucket; at least 1. */
  burst: number
}

export type GcraDecision =
  | { allowed: true; tatMs: number }
  /** A refusal spends nothing: `tatMs` is what it was. */
  | { allowed: false; tatMs: number; retryAfterMs: number }

/**
 * How much of the burst a bucket keeps back for the hand-off: the time from a token to the receiving
 * server (one SMTP exchange) varies, by up to ~150 ms measured on a loaded 2-core machine, and sends
 * whose tokens were 1 s + that spread apart can arrive within one second. Keeping `rate × 100 ms`
 * out of the burst holds "rate + burst in any 1 s window" where the mail arrives, not only where the
 * token is taken. A flood at its rate has no burst left anyway; only a tenant's first second sends less.
 */
export const HANDOFF_RESERVE_MS = 100

/** The bucket a plan is enforced with: its burst less `reserveMs` of its rate, and at least 1. */
export function enforcedPlan(plan: BucketPlan, reserveMs = HANDOFF_RESERVE_MS): BucketPlan {
  const reserve = Math.ceil((plan.ratePerSec * reserveMs) / 1000)
  return { ratePerSec: plan.ratePerSec, burst: Math.max(1, plan.burst - reserve) }
}

export function emissionIntervalMs(ratePerSec: number): number {
  return 1000 / ratePerSec
}

export function assertBucketPlan(plan: BucketPlan): void {
  if (!(Number.isFinite(plan.ratePerSec) && plan.ratePerSec > 0)) {
    throw new RangeError(`ratePerSec must be a positive number, got ${plan.ratePerSec}`)
  }
  if (!(Number.isFinite(plan.burst) && plan.burst >= 1)) {
    throw new RangeError(`burst must be at least 1, got ${plan.burst}`)
  }
}

/**
 * One take at `nowMs` against a bucket whose state is `tatMs` (null: never used or expired, i.e.
 * full). Written as "how far ahead of the allowance is tat" rather than `tat + T − B·T ≤ now` so that,
 * with burst 1, a stream arriving exactly every T compares `tat ≤ now` without a rounding step.
 */
export function decide(tatMs: number | null, nowMs: number, plan: BucketPlan): GcraDecision {
  const interval = emissionIntervalMs(plan.ratePerSec)
  const from = Math.max(tatMs ?? nowMs, nowMs)
  const waitMs = from - nowMs - (plan.burst - 1) * interval
  if (waitMs <= 0) return { allowed: true, tatMs: from + interval }
  return { allowed: false, tatMs: from, retryAfterMs: waitMs }
}

/**
 * Where a refused take's job should retry, as the Lua computes it: at the next token, or one interval
 * after the last slot already handed to a deferred job, whichever is later. Keeping the last reserved
 * slot (rather than a count of waiters) means slots already used up are not counted again when the
 * deferred jobs wake and take their tokens, so waits do not drift outward under sustained load.
 * `position` is the 1-based slot number counted from the next token.
 */
export function reserveDeferralSlot(input: {
  nextTokenAtMs: number
  lastReservedAtMs: number | null
  ratePerSec: number
}): { slotAtMs: number; position: number } {
  const interval = emissionIntervalMs(input.ratePerSec)
  const afterLast =
    input.lastReservedAtMs === null ? Number.NEGATIVE_INFINITY : input.lastReservedAtMs + interval
  const slotAtMs = Math.max(input.nextTokenAtMs, afterLast)
  return { slotAtMs, position: Math.round((slotAtMs - input.nextTokenAtMs) / interval) + 1 }
}

/**
 * How long to delay a refused job: to its slot (`retryAfterMs` plus `position − 1` intervals) plus a
 * jitter below one interval, so jobs deferred together wake one interval apart instead of all at the
 * instant the next token appears, where all but one would be refused again. Whole milliseconds,
 * rounded up so the job never wakes before its token.
 */
export function deferralDelayMs(input: {
  retryAfterMs: number
  /** 1-based place among the jobs deferred for this bucket right now. */
  position: number
  ratePerSec: number
  random?: () => number
}): number {
  const interval = emissionIntervalMs(input.ratePerSec)
  const random = input.random ?? Math.random
  const slotMs = input.retryAfterMs + (Math.max(1, input.position) - 1) * interval
  return Math.ceil(slotMs + random() * interval)
}
