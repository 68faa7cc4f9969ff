import { z } from 'zod'
import type { PlanOverrides } from './effective-plan'
import { PLAN_NAME_PATTERN } from './plan-definition'

const whole = (what: string, min: number, max: number) =>
  z
    .number(`must be a whole number (${what})`)
    .int(`must be a whole number (${what})`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)

const rate = () => whole('messages per second', 1, 100_000)
const burst = () => whole('messages', 1, 1_000_000)
const weight = () => whole('share of spare capacity', 1, 1_000)
const quota = () => whole('messages', 0, 1_000_000_000)

/** The transactional lanes' plan: both or neither (null: the platform's TRANSACTIONAL_RATE_PER_SEC / _BURST). */
const transactionalInput = z.strictObject({ ratePerSec: rate(), burst: burst() })

/**
 * The admin API's `plan` object (CONTRACT: `{ ratePerSec, burst, weight, transactional?, quota? }`), every
 * part optional: what it names is set for this tenant by hand (an override); what it leaves out keeps
 * its value. `transactional: null` and a quota of `null` are choices too (the platform's plan, no quota).
 */
export const planInputSchema = z.strictObject({
  ratePerSec: rate().optional(),
  burst: burst().optional(),
  weight: weight().optional(),
  transactional: transactionalInput.nullable().optional(),
  quota: z
    .strictObject({ daily: quota().nullable().optional(), monthly: quota().nullable().optional() })
    .optional(),
})

export type PlanInput = z.infer<typeof planInputSchema>

/** A plan name as the API takes it; whether the catalog knows it is the use case's question. */
export const planNameSchema = z
  .string('must be a plan name')
  .trim()
  .regex(PLAN_NAME_PATTERN, 'must be a plan name (lowercase letters, digits and dashes)')

/** The overrides a `plan` object sets, by column name; an empty object sets none. */
export function overridesOf(input: PlanInput): PlanOverrides {
  const overrides: PlanOverrides = {}
  if (input.ratePerSec !== undefined) overrides.ratePerSec = input.ratePerSec
  if (input.burst !== undefined) overrides.burst = input.burst
  if (input.weight !== undefined) overrides.weight = input.weight
  if (input.transactional !== undefined) {
    overrides.txRatePerSec = input.transactional?.ratePerSec ?? null
    overrides.txBurst = input.transactional?.burst ?? null
  }
  if (input.quota?.daily !== undefined) overrides.quotaDaily = input.quota.daily
  if (input.quota?.monthly !== undefined) overrides.quotaMonthly = input.quota.monthly
  return overrides
}
