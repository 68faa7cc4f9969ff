/**
 * A named plan (`PLANS`): what a tenant on it may send. Its values are copied into the tenant's plan
 * columns when the plan is assigned, so admission and the lanes read one row and never this catalog;
 * changing a definition later moves no tenant until the platform admin assigns the plan again.
 */
export interface PlanDefinition {
  /** The bulk lane's token bucket (mails/s, burst) and the tenant's share of spare capacity. */
  ratePerSec: number
  burst: number
  weight: number
  /** The critical and default lanes' plan; null: TRANSACTIONAL_RATE_PER_SEC / _BURST. */
  transactional: { ratePerSec: number; burst: number } | null
  /** Messages accepted per UTC day / calendar month; null: no quota. */
  quota: { daily: number | null; monthly: number | null }
}

/** Plan names as `PLANS` and the API spell them: lowercase letters, digits and dashes. */
export const PLAN_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/

/** The plan a tenant is on when nobody names one; equal to the schema's column defaults. */
export const DEFAULT_PLAN_NAME = 'standard'

/**
 * The plans every platform has. `standard` is exactly the tenants table's defaults (10/s, burst 20,
 * weight 1, the platform's transactional plan, no quota), so tenants made before plans existed are on
 * it unchanged.
 */
export const BUILT_IN_PLANS: Readonly<Record<string, PlanDefinition>> = {
  free: {
    ratePerSec: 1,
    burst: 5,
    weight: 1,
    transactional: { ratePerSec: 5, burst: 10 },
    quota: { daily: 100, monthly: 3_000 },
  },
  standard: {
    ratePerSec: 10,
    burst: 20,
    weight: 1,
    transactional: null,
    quota: { daily: null, monthly: null },
  },
  pro: {
    ratePerSec: 50,
    burst: 100,
    weight: 4,
    transactional: null,
    quota: { daily: null, monthly: null },
  },
}

/** The named plans in force: the built-in ones, each replaced or joined by `PLANS`' entries of the same name. */
export function planCatalog(
  configured: Readonly<Record<string, PlanDefinition>> = {},
): Readonly<Record<string, PlanDefinition>> {
  return { ...BUILT_IN_PLANS, ...configured }
}

export function planNames(catalog: Readonly<Record<string, PlanDefinition>>): string[] {
  return Object.keys(catalog).sort()
}
