import type { BucketPlan } from '@fairlane/fairness'

/**
 * A tenant's plan as the lane gates read it: its bucket, and for bulk whether the reputation
 * guardrail paused the tenant (its bulk jobs then wait instead of taking tokens).
 */
export interface GatePlan extends BucketPlan {
  bulkPaused?: boolean
}

export interface PlanCacheOptions {
  load: (tenantId: string) => Promise<GatePlan | undefined>
  /** How old a plan may be before it is read again: a plan change reaches the buckets within this. */
  refreshMs: number
  now?: () => number
}

export interface PlanCache {
  /** The tenant's plan, read at most once per `refreshMs`; undefined for an unknown tenant. */
  get(tenantId: string): Promise<GatePlan | undefined>
}

/**
 * Tenant plans for the lane workers' buckets. One read per tenant per refresh, shared by concurrent
 * callers; when a refresh fails the last known plan is used (a database blip must not stop sending),
 * and with no plan known at all the error propagates (the send is retried).
 */
export function createPlanCache(options: PlanCacheOptions): PlanCache {
  const now = options.now ?? Date.now
  const entries = new Map<string, { plan: GatePlan | undefined; loadedAt: number }>()
  const loading = new Map<string, Promise<GatePlan | undefined>>()

  async function refresh(tenantId: string): Promise<GatePlan | undefined> {
    try {
      const plan = await options.load(tenantId)
      entries.set(tenantId, { plan, loadedAt: now() })
      return plan
    } catch (error) {
      const stale = entries.get(tenantId)
      if (stale) return stale.plan
      throw error
    } finally {
      loading.delete(tenantId)
    }
  }

  return {
    get(tenantId) {
      const entry = entries.get(tenantId)
      if (entry && now() - entry.loadedAt < options.refreshMs) return Promise.resolve(entry.plan)
      const pending = loading.get(tenantId)
      if (pending) return pending
      const next = refresh(tenantId)
      loading.set(tenantId, next)
      return next
    },
  }
}
