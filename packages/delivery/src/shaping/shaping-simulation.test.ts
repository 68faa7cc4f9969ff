import { describe, expect, it } from 'vitest'
import { allowedAt, initialRate, onSuccess, onThrottle, type RateState } from './aimd'
import { createFairShareState, planFairShare, type ShareTenant } from './fair-share'
import {
  messagesAvailable,
  newProviderBudget,
  type ProviderBudget,
  refillProviderBudget,
  spendProviderBudget,
} from './provider-budget'

/**
 * The three pieces together against a simulated receiver, with the default back-off options: the
 * issue's scenario in small. "google" throttles one source address past 300 accepted messages a
 * minute although its rules allow 1,000; "microsoft" never throttles. Tenants A and B share google
 * by weight; B also has mail for microsoft. Pure simulated time: no servers, no sleeping.
 */

const TICK_MS = 100
const REPLY_AFTER_MS = 200
const GOOGLE_THROTTLES_PAST = 300
const RUN_MS = 30 * 60_000

interface Attempt {
  tenantId: string
  provider: string
  repliedAtMs: number
}

interface ProviderSimulation {
  rate: RateState
  budget: ProviderBudget
}

function simulate() {
  const providers: Record<string, ProviderSimulation> = {
    google: { rate: initialRate({ perMinute: 1_000 }, 0), budget: newProviderBudget(1_000, 0, 1_000) },
    microsoft: { rate: initialRate({ perMinute: 600 }, 0), budget: newProviderBudget(600, 0, 1_000) },
  }
  const tenants: ShareTenant[] = [
    { tenantId: 'a', weight: 1, allowance: 1e9 },
    { tenantId: 'b', weight: 1, allowance: 1e9 },
  ]
  const backlog = new Map([
    ['a/google', 1e6],
    ['b/google', 1e6],
    ['b/microsoft', 1e6],
  ])
  const fairShare = createFairShareState()
  const inFlight: Attempt[] = []
  const googleAcceptedAtMs: number[] = []
  const accepted = new Map<string, number>()
  let attemptsAfterFirstMinute = 0
  let throttlesAfterFirstMinute = 0

  for (let nowMs = 0; nowMs < RUN_MS; nowMs += TICK_MS) {
    while (inFlight.length > 0 && (inFlight[0] as Attempt).repliedAtMs <= nowMs) {
      const attempt = inFlight.shift() as Attempt
      const provider = providers[attempt.provider] as ProviderSimulation
      const key = `${attempt.tenantId}/${attempt.provider}`
      const windowStartMs = attempt.repliedAtMs - 60_000
      while (googleAcceptedAtMs.length > 0 && (googleAcceptedAtMs[0] as number) <= windowStartMs) {
        googleAcceptedAtMs.shift()
      }
      const throttled = attempt.provider === 'google' && googleAcceptedAtMs.length >= GOOGLE_THROTTLES_PAST
      if (attempt.repliedAtMs >= 60_000) attemptsAfterFirstMinute++
      if (throttled) {
        if (attempt.repliedAtMs >= 60_000) throttlesAfterFirstMinute++
        provider.rate = onThrottle(provider.rate, attempt.repliedAtMs)
        backlog.set(key, (backlog.get(key) ?? 0) + 1)
      } else {
        if (attempt.provider === 'google') googleAcceptedAtMs.push(attempt.repliedAtMs)
        provider.rate = onSuccess(provider.rate, attempt.repliedAtMs)
        accepted.set(key, (accepted.get(key) ?? 0) + 1)
      }
    }

    for (const provider of Object.values(providers)) {
      provider.budget = refillProviderBudget(provider.budget, allowedAt(provider.rate, nowMs), nowMs, 1_000)
    }
    const plan = planFairShare(fairShare, {
      providers: Object.entries(providers).map(([name, { budget }]) => ({
        provider: name,
        budget: messagesAvailable(budget),
      })),
      tenants,
      backlogs: [...backlog].map(([key, count]) => {
        const [tenantId, provider] = key.split('/') as [string, string]
        return { tenantId, provider, backlog: count }
      }),
      nowMs,
    })
    for (const release of plan.releases) {
      const provider = providers[release.provider] as ProviderSimulation
      provider.budget = spendProviderBudget(provider.budget, release.count)
      const key = `${release.tenantId}/${release.provider}`
      backlog.set(key, (backlog.get(key) ?? 0) - release.count)
    }
    for (const slot of plan.order) inFlight.push({ ...slot, repliedAtMs: nowMs + REPLY_AFTER_MS })
  }
  return { accepted, attemptsAfterFirstMinute, throttlesAfterFirstMinute, google: providers.google?.rate }
}

describe('shaping, simulated against a throttling receiver', () => {
  const run = simulate()

  it('keeps throttle replies under 1 % of attempts after the first minute', () => {
    expect(run.attemptsAfterFirstMinute).toBeGreaterThan(1_000)
    // It does probe past the limit now and then (that is how it finds a raised one), and backs off.
    expect(run.throttlesAfterFirstMinute).toBeGreaterThan(0)
    expect(run.throttlesAfterFirstMinute / run.attemptsAfterFirstMinute).toBeLessThan(0.01)
  })

  it('keeps google busy near what it accepts rather than far below it', () => {
    const googleAccepted = (run.accepted.get('a/google') ?? 0) + (run.accepted.get('b/google') ?? 0)
    // 300 a minute is the most it accepts; the saw-tooth of AIMD spends part of the time below.
    expect(googleAccepted / (RUN_MS / 60_000)).toBeGreaterThan(0.6 * GOOGLE_THROTTLES_PAST)
    expect(run.google?.lastThrottledPerMinute).not.toBeNull()
  })

  it('shares google equally between equal weights, and leaves microsoft unslowed', () => {
    const a = run.accepted.get('a/google') ?? 0
    const b = run.accepted.get('b/google') ?? 0
    expect(((a + b) * (a + b)) / (2 * (a * a + b * b))).toBeGreaterThanOrEqual(0.95)
    // Microsoft's whole rate, all of it B's, less the last reply round trip.
    expect(run.accepted.get('b/microsoft')).toBeGreaterThanOrEqual(600 * (RUN_MS / 60_000) - 10)
  })
})
