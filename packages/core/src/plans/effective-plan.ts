import type { PlanDefinition } from './plan-definition'

/** The tenants table's plan columns, by their drizzle names; what admission and the lanes read. */
export interface PlanColumns {
  ratePerSec: number
  burst: number
  weight: number
  txRatePerSec: number | null
  txBurst: number | null
  quotaDaily: number | null
  quotaMonthly: number | null
}

export const PLAN_COLUMN_NAMES = [
  'ratePerSec',
  'burst',
  'weight',
  'txRatePerSec',
  'txBurst',
  'quotaDaily',
  'quotaMonthly',
] as const satisfies readonly (keyof PlanColumns)[]

export type PlanColumnName = (typeof PLAN_COLUMN_NAMES)[number]

/**
 * The fields the platform admin set by hand for one tenant (`plan_overrides`), by column name. A null
 * is a choice too: "the platform's transactional plan" or "no quota", whatever the named plan says.
 * The bulk fields are never null (the columns are not).
 */
export type PlanOverrides = Partial<PlanColumns>

export function columnsOf(definition: PlanDefinition): PlanColumns {
  return {
    ratePerSec: definition.ratePerSec,
    burst: definition.burst,
    weight: definition.weight,
    txRatePerSec: definition.transactional?.ratePerSec ?? null,
    txBurst: definition.transactional?.burst ?? null,
    quotaDaily: definition.quota.daily,
    quotaMonthly: definition.quota.monthly,
  }
}

/** `columns` with each overridden field replaced; fields the overrides do not name keep their value. */
export function applyOverrides(columns: PlanColumns, overrides: PlanOverrides): PlanColumns {
  const result = { ...columns }
  for (const name of PLAN_COLUMN_NAMES) {
    const value = overrides[name]
    if (value === undefined) continue
    if ((name === 'ratePerSec' || name === 'burst' || name === 'weight') && value === null) continue
    ;(result as Record<PlanColumnName, number | null>)[name] = value
  }
  return result
}

/** What a tenant on `definition` with `overrides` may send: the columns its row holds. */
export function effectivePlan(definition: PlanDefinition, overrides: PlanOverrides): PlanColumns {
  return applyOverrides(columnsOf(definition), overrides)
}

/** `plan_overrides` as stored (a jsonb object), read back: unknown keys and non-numbers are dropped. */
export function readOverrides(stored: Record<string, unknown> | null | undefined): PlanOverrides {
  const overrides: Record<string, number | null> = {}
  for (const name of PLAN_COLUMN_NAMES) {
    const value = stored?.[name]
    if (value === null || (typeof value === 'number' && Number.isInteger(value))) overrides[name] = value
  }
  return overrides
}

/** A tenant's plan as the admin API answers it (CONTRACT's `plan` object, transactional and quota always present). */
/**
 * A plan as JSON: the contract's `{ ratePerSec, burst, weight }` and the transactional part and quotas
 * (null: the platform's transactional plan, no quota). `planJson` writes every part (the audit entries,
 * the plans list); `planAnswer` leaves out the parts a tenant does not have, so a tenant on today's
 * defaults answers the admin API exactly what it answered before plans had those parts.
 */
export interface PlanJson {
  ratePerSec: number
  burst: number
  weight: number
  transactional?: { ratePerSec: number; burst: number } | null
  quota?: { daily?: number | null; monthly?: number | null }
}

export function planJson(columns: PlanColumns): PlanJson {
  return {
    ratePerSec: columns.ratePerSec,
    burst: columns.burst,
    weight: columns.weight,
    // Both columns or neither: the writers set them together, and one alone would be no plan at all.
    transactional:
      columns.txRatePerSec !== null && columns.txBurst !== null
        ? { ratePerSec: columns.txRatePerSec, burst: columns.txBurst }
        : null,
    quota: { daily: columns.quotaDaily, monthly: columns.quotaMonthly },
  }
}

/** The plan as `GET`/`PATCH /api/admin/tenants` answer it: `transactional` and `quota` only when set. */
export function planAnswer(columns: PlanColumns): PlanJson {
  const { transactional, quota, ...bulk } = planJson(columns)
  const set = {
    ...(quota?.daily == null ? {} : { daily: quota.daily }),
    ...(quota?.monthly == null ? {} : { monthly: quota.monthly }),
  }
  return {
    ...bulk,
    ...(transactional ? { transactional } : {}),
    ...(Object.keys(set).length > 0 ? { quota: set } : {}),
  }
}
