import { describe, expect, it } from 'vitest'
import {
  messagesAvailable,
  newProviderBudget,
  type ProviderBudget,
  refillProviderBudget,
  spendProviderBudget,
} from './provider-budget'

const BURST_MS = 1_000

/** Runs `ticks` pacer ticks of `tickMs` at `ratePerMinute`, spending everything available. */
function releasedOver(ratePerMinute: number, ticks: number, tickMs: number): number {
  let budget: ProviderBudget = { tokens: 0, refilledAtMs: 0 }
  let released = 0
  for (let tick = 1; tick <= ticks; tick++) {
    budget = refillProviderBudget(budget, ratePerMinute, tick * tickMs, BURST_MS)
    const messages = messagesAvailable(budget)
    budget = spendProviderBudget(budget, messages)
    released += messages
  }
  return released
}

describe('provider budget', () => {
  it('carries fractions across ticks: 30 a minute at 100 ms ticks is 30 a minute', () => {
    expect(releasedOver(30, 600, 100)).toBe(30)
    expect(releasedOver(1, 1_200, 100)).toBe(2)
    expect(releasedOver(300, 600, 100)).toBe(300)
    expect(releasedOver(6_000, 600, 100)).toBe(6_000)
  })

  it('starts full, and banks no more than the burst while idle', () => {
    const fresh = newProviderBudget(600, 0, BURST_MS)
    expect(messagesAvailable(fresh)).toBe(10)
    const idle = refillProviderBudget(spendProviderBudget(fresh, 10), 600, 60 * 60_000, BURST_MS)
    expect(messagesAvailable(idle)).toBe(10)
    // A slow rate still reaches one whole message.
    expect(messagesAvailable(refillProviderBudget({ tokens: 0, refilledAtMs: 0 }, 1, 60_000, BURST_MS))).toBe(
      1,
    )
  })

  it('empties while paused, so no burst follows a pause, and obeys a lowered rate at once', () => {
    const full = newProviderBudget(600, 0, BURST_MS)
    expect(messagesAvailable(refillProviderBudget(full, 0, 100, BURST_MS))).toBe(0)
    expect(messagesAvailable(refillProviderBudget(full, 120, 100, BURST_MS))).toBe(2)
  })

  it('holds the address to what its warm-up leaves for today', () => {
    const full = newProviderBudget(6_000, 0, BURST_MS)
    expect(messagesAvailable(full, 7)).toBe(7)
    expect(messagesAvailable(full, 0)).toBe(0)
    expect(messagesAvailable(full, -3)).toBe(0)
  })

  it('refills nothing for a clock that stepped back', () => {
    const budget = { tokens: 0.5, refilledAtMs: 10_000 }
    expect(refillProviderBudget(budget, 600, 5_000, BURST_MS)).toEqual(budget)
  })

  it('refuses to spend more than there is, or a bad rate', () => {
    const full = newProviderBudget(600, 0, BURST_MS)
    expect(() => spendProviderBudget(full, 11)).toThrow(/budget of 10/)
    expect(() => spendProviderBudget(full, -1)).toThrow(/integer/)
    expect(() => newProviderBudget(-1, 0, BURST_MS)).toThrow(/ratePerMinute/)
    expect(() => newProviderBudget(10, 0, 0)).toThrow(/burstMs/)
  })
})
