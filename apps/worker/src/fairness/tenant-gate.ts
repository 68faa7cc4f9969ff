import type { Lane } from '@fairlane/core'
import { type BucketPlan, deferralDelayMs, type TokenBuckets } from '@fairlane/fairness'
import type { PlanCache } from './plan-cache'

export type Admission = { ok: true } | { ok: false; delayMs: number }

export interface TenantGate {
  /** Takes one token from the tenant's bucket for this lane, or says how long to wait for one. */
  admit(tenantId: string): Promise<Admission>
  /** Gives the token back: the job did not send (already sent, suppressed, claimed elsewhere). */
  refund(tenantId: string): Promise<void>
}

/**
 * The per-tenant token bucket in front of a lane. Bulk uses the tenant's plan (rate, burst), read
 * through the plan cache so a plan change is obeyed within its refresh; critical and default each
 * have their own bucket per tenant with the platform's transactional plan, so nothing a tenant does
 * in bulk can take a login code's token. A tenant that no longer exists gets no tokens to wait for:
 * its job is let through and the send itself finds nothing to do.
 */
export function createTenantGate(options: {
  lane: Lane
  buckets: TokenBuckets
  planFor: (tenantId: string) => Promise<BucketPlan | undefined>
  random?: () => number
}): TenantGate {
  const bucketOf = (tenantId: string) => `${options.lane}:${tenantId}`
  return {
    async admit(tenantId) {
      const plan = await options.planFor(tenantId)
      if (!plan) return { ok: true }
      const taken = await options.buckets.take(bucketOf(tenantId), plan)
      if (taken.ok) return taken
      return {
        ok: false,
        delayMs: deferralDelayMs({
          retryAfterMs: taken.retryAfterMs,
          position: taken.position,
          ratePerSec: plan.ratePerSec,
          ...(options.random ? { random: options.random } : {}),
        }),
      }
    },
    async refund(tenantId) {
      const plan = await options.planFor(tenantId)
      if (plan) await options.buckets.refund(bucketOf(tenantId), plan)
    },
  }
}

/** Bulk reads each tenant's plan; the transactional lanes share one platform-wide plan per tenant. */
export function planSourceFor(
  lane: Lane,
  sources: { plans: PlanCache; transactional: BucketPlan },
): (tenantId: string) => Promise<BucketPlan | undefined> {
  if (lane === 'bulk') return (tenantId) => sources.plans.get(tenantId)
  return async () => sources.transactional
}
