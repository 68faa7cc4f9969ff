import type { ReceiverPlanner } from '@fairlane/core/pacing'
import { createFairShareState, planFairShare, settleFairShare } from '@fairlane/delivery/shaping/fair-share'
import {
  messagesAvailable,
  newProviderBudget,
  type ProviderBudget,
  refillProviderBudget,
  spendProviderBudget,
} from '@fairlane/delivery/shaping/provider-budget'
import { allowanceCap, refilledAllowance } from '@fairlane/fairness'

export interface ReceiverPlannerOptions {
  /** How far ahead of its plan's rate a tenant's releases may run (PACER_HORIZON_MS), as the bulk pacer. */
  horizonMs: number
  /** How much of a provider's rate it may take at once after a quiet spell. */
  providerBurstMs: number
}

/** Tenants and providers unseen this long are forgotten, so memory stays bounded. */
const FORGET_AFTER_MS = 10 * 60_000

interface TenantAllowance {
  allowance: number
  refilledAtMs: number
  seenAtMs: number
}

/**
 * The receiver pacer's planner: `planFairShare` over each provider's budget this tick (its rate
 * through a token bucket, `provider-budget.ts`) and each tenant's allowance this tick (its plan's
 * rate through the same bucket as the bulk pacer's, `release-allowance.ts`). Budgets and
 * allowances are spent at `commit`, by what the claim released, not by what was planned.
 */
export function createReceiverPlanner(options: ReceiverPlannerOptions): ReceiverPlanner {
  const share = createFairShareState()
  const budgets = new Map<string, ProviderBudget & { seenAtMs: number }>()
  const pairBudgets = new Map<string, ProviderBudget & { seenAtMs: number }>()
  const allowances = new Map<string, TenantAllowance>()

  function forget(nowMs: number) {
    for (const [key, entry] of budgets) if (nowMs - entry.seenAtMs >= FORGET_AFTER_MS) budgets.delete(key)
    for (const [key, entry] of pairBudgets)
      if (nowMs - entry.seenAtMs >= FORGET_AFTER_MS) pairBudgets.delete(key)
    for (const [key, entry] of allowances)
      if (nowMs - entry.seenAtMs >= FORGET_AFTER_MS) allowances.delete(key)
  }

  return {
    plan({ tenants, backlogs, rates, pairRates, capacity, nowMs }) {
      forget(nowMs)
      // A pair its provider slowed alone has a budget of its own: its backlog is capped at it, so
      // its share of the provider goes to the others (fair-share's way to slow one tenant).
      const capped = backlogs.map((entry) => {
        const key = `${entry.tenantId}\u0000${entry.provider}`
        const rate = pairRates?.get(key)
        if (rate === undefined) return entry
        const previous = pairBudgets.get(key)
        const budget = previous
          ? refillProviderBudget(previous, rate, nowMs, options.providerBurstMs)
          : newProviderBudget(rate, nowMs, options.providerBurstMs)
        pairBudgets.set(key, { ...budget, seenAtMs: nowMs })
        return { ...entry, backlog: Math.min(entry.backlog, messagesAvailable(budget)) }
      })
      const providers = [...rates].map(([provider, rate]) => {
        const previous = budgets.get(provider)
        const budget = previous
          ? refillProviderBudget(previous, rate, nowMs, options.providerBurstMs)
          : newProviderBudget(rate, nowMs, options.providerBurstMs)
        budgets.set(provider, { ...budget, seenAtMs: nowMs })
        return { provider, budget: messagesAvailable(budget) }
      })
      const shareTenants = tenants.map((tenant) => {
        const cap = allowanceCap(tenant.ratePerSec, options.horizonMs, tenant.burst)
        const previous = allowances.get(tenant.tenantId)
        const allowance = previous
          ? refilledAllowance({ ...previous, nowMs, ratePerSec: tenant.ratePerSec, cap })
          : cap
        allowances.set(tenant.tenantId, { allowance, refilledAtMs: nowMs, seenAtMs: nowMs })
        return { tenantId: tenant.tenantId, weight: tenant.weight, allowance: Math.floor(allowance) }
      })
      const plan = planFairShare(share, {
        providers,
        tenants: shareTenants,
        backlogs: capped.filter((entry) => entry.backlog > 0),
        nowMs,
      })
      const order = plan.order.slice(0, Math.max(0, capacity))
      // The lane had fewer free slots than the budgets: the pairs cut short count as emptied, so
      // the scheduler does not resume a turn the tick never took.
      if (order.length < plan.order.length) {
        const kept = new Map<string, number>()
        for (const slot of order)
          kept.set(
            `${slot.tenantId}\u0000${slot.provider}`,
            (kept.get(`${slot.tenantId}\u0000${slot.provider}`) ?? 0) + 1,
          )
        for (const release of plan.releases) {
          const released = kept.get(`${release.tenantId}\u0000${release.provider}`) ?? 0
          if (released < release.count)
            settleFairShare(share, { ...release, planned: release.count, released })
        }
      }
      return { order }
    },
    commit({ pairs, nowMs }) {
      for (const pair of pairs) {
        const budget = budgets.get(pair.provider)
        if (budget) {
          const spent = Math.min(pair.released, Math.floor(budget.tokens))
          budgets.set(pair.provider, { ...spendProviderBudget(budget, spent), seenAtMs: nowMs })
        }
        const pairBudget = pairBudgets.get(`${pair.tenantId}\u0000${pair.provider}`)
        if (pairBudget) {
          const spent = Math.min(pair.released, Math.floor(pairBudget.tokens))
          pairBudgets.set(`${pair.tenantId}\u0000${pair.provider}`, {
            ...spendProviderBudget(pairBudget, spent),
            seenAtMs: nowMs,
          })
        }
        const allowance = allowances.get(pair.tenantId)
        if (allowance) allowance.allowance = Math.max(0, allowance.allowance - pair.released)
        if (pair.released < pair.planned) settleFairShare(share, pair)
      }
    },
  }
}
