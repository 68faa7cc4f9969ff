import { overridesOf, type PlanChange, planInputSchema, planNameSchema } from '@fairlane/core'
import type { z } from 'zod'

/** A tenant's `plan` object (CONTRACT): every part optional; what it names is set by hand for the tenant. */
export const planInput = planInputSchema

/** `planName`: a named plan (PLANS); whether it exists is the use case's check, naming the field. */
export const planNameInput = planNameSchema

/** The PATCH's plan part: `planName`, `plan`, `resetOverrides`, as core's `PlanChange`. */
export function planChangeOf(body: {
  planName?: string | undefined
  plan?: z.infer<typeof planInput> | undefined
  resetOverrides?: boolean | undefined
}): PlanChange | undefined {
  if (body.planName === undefined && body.plan === undefined && !body.resetOverrides) return undefined
  return {
    planName: body.planName,
    overrides: body.plan === undefined ? undefined : overridesOf(body.plan),
    resetOverrides: body.resetOverrides,
  }
}
