/**
 * Turns a provider's allowed rate (messages a minute, from the AIMD controller) into the whole
 * messages it may take at one pacer tick: a token bucket per (egress address × provider), refilled
 * at the rate and capped at `burstMs` of it. Fractions carry over from tick to tick, so 30 a minute
 * at 100 ms ticks is one message every 20 ticks rather than none; the cap keeps a provider that had
 * no mail for a while from banking a minute's worth and taking it in one burst.
 *
 * Pure and plain like the rate state, so it is stored beside it.
 */

export interface ProviderBudget {
  /** Messages that may go now; fractional between ticks. */
  tokens: number
  refilledAtMs: number
}

/** A fresh bucket is full: a provider's first mail goes out at once. */
export function newProviderBudget(ratePerMinute: number, nowMs: number, burstMs: number): ProviderBudget {
  return { tokens: capOf(ratePerMinute, burstMs), refilledAtMs: nowMs }
}

/**
 * The bucket at `nowMs` for the rate now. A rate of 0 (a paused provider) empties it, so a pause
 * is not followed by a burst of what was saved before it; a lowered rate lowers the cap at once.
 * A clock that stepped back refills nothing.
 */
export function refillProviderBudget(
  budget: ProviderBudget,
  ratePerMinute: number,
  nowMs: number,
  burstMs: number,
): ProviderBudget {
  const cap = capOf(ratePerMinute, burstMs)
  const elapsedMs = Math.max(0, nowMs - budget.refilledAtMs)
  const tokens = Math.min(cap, budget.tokens + (ratePerMinute * elapsedMs) / 60_000)
  return { tokens, refilledAtMs: Math.max(budget.refilledAtMs, nowMs) }
}

/**
 * The fair scheduler's budget for the provider this tick: whole messages, no more than the
 * address may still send it today under its warm-up cap.
 */
export function messagesAvailable(
  budget: ProviderBudget,
  warmupLeftToday: number = Number.POSITIVE_INFINITY,
): number {
  return Math.max(0, Math.floor(Math.min(budget.tokens, warmupLeftToday)))
}

/** Takes what the tick released. */
export function spendProviderBudget(budget: ProviderBudget, messages: number): ProviderBudget {
  if (!(Number.isInteger(messages) && messages >= 0)) {
    throw new RangeError(`messages spent must be an integer ≥ 0, got ${messages}`)
  }
  if (messages > Math.floor(budget.tokens)) {
    throw new RangeError(`spent ${messages} messages of a budget of ${Math.floor(budget.tokens)}`)
  }
  return { ...budget, tokens: budget.tokens - messages }
}

/** `burstMs` of the rate, but at least one message while the rate is above 0. */
function capOf(ratePerMinute: number, burstMs: number): number {
  if (!(Number.isFinite(ratePerMinute) && ratePerMinute >= 0)) {
    throw new RangeError(`ratePerMinute must be a finite number ≥ 0, got ${ratePerMinute}`)
  }
  if (!(Number.isFinite(burstMs) && burstMs > 0)) {
    throw new RangeError(`burstMs must be a finite number > 0, got ${burstMs}`)
  }
  if (ratePerMinute === 0) return 0
  return Math.max(1, (ratePerMinute * burstMs) / 60_000)
}
