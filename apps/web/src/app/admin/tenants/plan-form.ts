import type { PlanColumns, PlanJson } from '@fairlane/core'

/** The plan editor's fields, by the tenants table's column names. */
export const PLAN_FIELDS = [
  'ratePerSec',
  'burst',
  'weight',
  'txRatePerSec',
  'txBurst',
  'quotaDaily',
  'quotaMonthly',
] as const
export type PlanField = (typeof PLAN_FIELDS)[number]
export type Plan = PlanColumns

/** The bulk fields; the rest may be left empty (the platform's transactional plan, no quota). */
const REQUIRED: readonly PlanField[] = ['ratePerSec', 'burst', 'weight']

/** A plan as the API answers it → the editor's columns. */
export function columnsOfJson(plan: PlanJson): Plan {
  return {
    ratePerSec: plan.ratePerSec,
    burst: plan.burst,
    weight: plan.weight,
    txRatePerSec: plan.transactional?.ratePerSec ?? null,
    txBurst: plan.transactional?.burst ?? null,
    quotaDaily: plan.quota?.daily ?? null,
    quotaMonthly: plan.quota?.monthly ?? null,
  }
}

/** The editor's text for a plan: empty for "platform's" and "none". */
export function planText(plan: Plan): Record<PlanField, string> {
  return Object.fromEntries(
    PLAN_FIELDS.map((field) => [field, plan[field] === null ? '' : String(plan[field])]),
  ) as Record<PlanField, string>
}

/**
 * Checks the editor's text before it is sent, with the server's rules (rate, burst and weight whole
 * numbers of at least 1; the transactional rate and burst both or neither; quotas whole numbers of 0
 * or more, or empty for none), so a slip is shown at once; the server checks again and its answer,
 * naming the field, is shown the same way.
 */
export function validatePlan(
  input: Record<PlanField, string>,
): { plan: Plan } | { errors: Partial<Record<PlanField, string>> } {
  const errors: Partial<Record<PlanField, string>> = {}
  const plan = {} as Record<PlanField, number | null>
  for (const field of PLAN_FIELDS) {
    const text = (input[field] ?? '').trim()
    const required = REQUIRED.includes(field)
    const min = field === 'quotaDaily' || field === 'quotaMonthly' ? 0 : 1
    const value = Number(text)
    if (text === '' && !required) plan[field] = null
    else if (text === '' || !Number.isFinite(value)) errors[field] = 'Enter a number'
    else if (!Number.isInteger(value)) errors[field] = 'Use a whole number'
    else if (value < min)
      errors[field] = field === 'ratePerSec' ? 'Must be more than 0' : `Must be at least ${min}`
    else plan[field] = value
  }
  if (!errors.txRatePerSec && !errors.txBurst && (plan.txRatePerSec === null) !== (plan.txBurst === null)) {
    const missing = plan.txRatePerSec === null ? 'txRatePerSec' : 'txBurst'
    errors[missing] = 'Give the transactional rate and burst together, or neither'
  }
  return Object.keys(errors).length > 0 ? { errors } : { plan: plan as unknown as Plan }
}

/**
 * The PATCH that puts the tenant on `planName` with exactly the fields that differ from that plan
 * set by hand: the overrides are reset, so a field brought back to the plan's value follows the plan
 * again.
 */
export function planPatch(planName: string, plan: Plan, named: Plan): Record<string, unknown> {
  const overrides: Record<string, unknown> = {}
  for (const field of ['ratePerSec', 'burst', 'weight'] as const) {
    if (plan[field] !== named[field]) overrides[field] = plan[field]
  }
  if (plan.txRatePerSec !== named.txRatePerSec || plan.txBurst !== named.txBurst) {
    overrides.transactional =
      plan.txRatePerSec === null || plan.txBurst === null
        ? null
        : { ratePerSec: plan.txRatePerSec, burst: plan.txBurst }
  }
  const quota: Record<string, number | null> = {}
  if (plan.quotaDaily !== named.quotaDaily) quota.daily = plan.quotaDaily
  if (plan.quotaMonthly !== named.quotaMonthly) quota.monthly = plan.quotaMonthly
  if (Object.keys(quota).length > 0) overrides.quota = quota
  return {
    planName,
    resetOverrides: true,
    ...(Object.keys(overrides).length > 0 ? { plan: overrides } : {}),
  }
}

const SERVER_PATHS: Record<string, PlanField | 'planName'> = {
  'plan.ratePerSec': 'ratePerSec',
  'plan.burst': 'burst',
  'plan.weight': 'weight',
  'plan.transactional.ratePerSec': 'txRatePerSec',
  'plan.transactional.burst': 'txBurst',
  'plan.transactional': 'txRatePerSec',
  'plan.quota.daily': 'quotaDaily',
  'plan.quota.monthly': 'quotaMonthly',
  planName: 'planName',
}

/** `plan.weight` of a 400's details → `weight`; `plan.quota.daily` → `quotaDaily`. */
export function planFieldOf(path: string): PlanField | 'planName' | null {
  return SERVER_PATHS[path] ?? null
}

/** The plan in one line, as the tenants table and the editor's notice show it. */
export function describePlan(plan: Pick<PlanJson, 'ratePerSec' | 'burst' | 'weight'>): string {
  return `${plan.ratePerSec}/s, burst ${plan.burst}, weight ${plan.weight}`
}

/** The transactional part and quotas in words. */
export function describeLimits(plan: PlanJson): string {
  const tx = plan.transactional
    ? `transactional ${plan.transactional.ratePerSec}/s, burst ${plan.transactional.burst}`
    : 'platform transactional plan'
  const quota = [
    plan.quota?.daily == null ? null : `${plan.quota.daily}/day`,
    plan.quota?.monthly == null ? null : `${plan.quota.monthly}/month`,
  ].filter(Boolean)
  return `${tx}; ${quota.length > 0 ? `quota ${quota.join(', ')}` : 'no quota'}`
}
