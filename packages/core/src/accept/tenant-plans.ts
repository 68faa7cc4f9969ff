import type { AcceptPlan, LanePlan } from './admit-by-plan'

/**
 * What admission needs of a tenant's own plan: its transactional part (null: the platform's
 * TRANSACTIONAL_RATE_PER_SEC / _BURST) and its quotas (null: none). The platform admin writes them on
 * the tenant row; every way in reads them through a per-process cache (`TenantPlans`), so a change
 * takes effect within that cache's TTL.
 */
export interface TenantPlan {
  transactional: OwnLanePlan
  quota: Quota
}

/** The tenant's own transactional rate and burst; each null: the platform's value. */
export interface OwnLanePlan {
  ratePerSec: number | null
  burst: number | null
}

/** Messages a tenant may have accepted per UTC day and per UTC calendar month; null: no quota. */
export interface Quota {
  daily: number | null
  monthly: number | null
}

export const NO_QUOTA: Quota = { daily: null, monthly: null }

/** The platform's defaults: a tenant with no row of its own (or unknown) is held to these. */
export const DEFAULT_TENANT_PLAN: TenantPlan = {
  transactional: { ratePerSec: null, burst: null },
  quota: NO_QUOTA,
}

export interface TenantPlans {
  /** The tenant's plan, at most a cache TTL old; an unknown tenant gets `DEFAULT_TENANT_PLAN`. */
  planOf(tenantId: string): Promise<TenantPlan>
}

/** The accept plan of one tenant: its own transactional plan on both lanes, the platform's horizons. */
export function tenantAcceptPlan(platform: AcceptPlan, own: OwnLanePlan | null): AcceptPlan {
  if (own === null || (own.ratePerSec === null && own.burst === null)) return platform
  const lane = (base: LanePlan): LanePlan => ({
    ratePerSec: own.ratePerSec ?? base.ratePerSec,
    burst: own.burst ?? base.burst,
  })
  return {
    critical: { plan: lane(platform.critical.plan), horizonMs: platform.critical.horizonMs },
    default: { plan: lane(platform.default.plan), horizonMs: platform.default.horizonMs },
  }
}

/** The tenant's transactional lane plan in full, the platform's values filling what it leaves open. */
export function ownLanePlan(platform: LanePlan, own: OwnLanePlan): LanePlan {
  return { ratePerSec: own.ratePerSec ?? platform.ratePerSec, burst: own.burst ?? platform.burst }
}

export function hasQuota(quota: Quota): boolean {
  return quota.daily !== null || quota.monthly !== null
}
