import { validationFailed } from '../errors/app-error'
import {
  applyOverrides,
  effectivePlan,
  type PlanColumns,
  type PlanDefinition,
  type PlanOverrides,
  planJson,
  planNames,
} from '../plans'
import type { AdminTenant } from './ports'

/** What a plan change asks: a named plan and/or fields set by hand; `resetOverrides` drops the old ones first. */
export interface PlanChange {
  planName?: string | undefined
  overrides?: PlanOverrides | undefined
  resetOverrides?: boolean | undefined
}

/** The catalog's definition of `name`; 400 naming `field` when it has none. */
export function definitionOf(
  plans: Readonly<Record<string, PlanDefinition>>,
  name: string,
  field = 'planName',
): PlanDefinition {
  const definition = plans[name]
  if (!definition) {
    throw validationFailed([
      { path: field, message: `is not a plan; the plans are ${planNames(plans).join(', ')} (PLANS)` },
    ])
  }
  return definition
}

/**
 * The tenant's plan after `change`. Naming a plan (or resetting the overrides) recomputes every column
 * from the plan's definition and the overrides kept; overrides alone change only the fields they name,
 * so a tenant whose columns were set by hand before plans existed keeps the rest as they are.
 */
export function nextPlan(
  current: Pick<AdminTenant, 'planName' | 'planOverrides' | 'plan'>,
  change: PlanChange,
  plans: Readonly<Record<string, PlanDefinition>>,
): { planName: string; planOverrides: PlanOverrides; plan: PlanColumns } {
  const given = change.overrides ?? {}
  const planOverrides = { ...(change.resetOverrides ? {} : current.planOverrides), ...given }
  if (change.planName === undefined && !change.resetOverrides) {
    return { planName: current.planName, planOverrides, plan: applyOverrides(current.plan, given) }
  }
  const planName = change.planName ?? current.planName
  const definition = definitionOf(plans, planName)
  return { planName, planOverrides, plan: effectivePlan(definition, planOverrides) }
}

/**
 * A plan as the audit log records it, before and after: the plan's fields at the top (as entries made
 * before named plans read), with the plan's name and the overrides beside them.
 */
export function auditedPlan(tenant: Pick<AdminTenant, 'planName' | 'planOverrides' | 'plan'>) {
  return { ...planJson(tenant.plan), planName: tenant.planName, overrides: tenant.planOverrides }
}
