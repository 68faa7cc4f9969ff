import { DEFAULT_TENANT_PLAN, type TenantPlan, type TenantPlans } from './tenant-plans'

/** How long a process reuses a tenant's plan it read: a plan changed by the admin applies within this. */
export const TENANT_PLAN_TTL_MS = 5_000

/** Enough for every tenant sending at once on a large installation; past it the oldest entry goes. */
const MAX_ENTRIES = 10_000

export interface TenantPlanCacheOptions {
  /** One query of the tenant row; null for an unknown tenant. */
  load(tenantId: string): Promise<TenantPlan | null>
  ttlMs?: number
  maxEntries?: number
  now?: () => number
}

/**
 * Every way in (API, batch, SMTP, the app) asks for the tenant's plan on each accept; this keeps one
 * read per tenant per TTL per process, shared by concurrent callers. A failed read is not kept (the
 * next caller tries again) and, when an older plan is known, that one answers meanwhile: a database
 * blip must not hold a tenant to the platform defaults, nor refuse it.
 */
export function createTenantPlanCache(options: TenantPlanCacheOptions): TenantPlans {
  const ttlMs = options.ttlMs ?? TENANT_PLAN_TTL_MS
  const maxEntries = options.maxEntries ?? MAX_ENTRIES
  const now = options.now ?? Date.now
  const entries = new Map<string, { plan: TenantPlan; loadedAt: number }>()
  const loading = new Map<string, Promise<TenantPlan>>()

  const refresh = async (tenantId: string): Promise<TenantPlan> => {
    try {
      const plan = (await options.load(tenantId)) ?? DEFAULT_TENANT_PLAN
      entries.delete(tenantId)
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
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
    planOf(tenantId) {
      const entry = entries.get(tenantId)
      if (entry && now() - entry.loadedAt < ttlMs) return Promise.resolve(entry.plan)
      const pending = loading.get(tenantId)
      if (pending) return pending
      const next = refresh(tenantId)
      loading.set(tenantId, next)
      return next
    },
  }
}
