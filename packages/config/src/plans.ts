import { readFileSync } from 'node:fs'
import { z } from 'zod'

/**
 * One named plan as `PLANS` / `PLANS_FILE` give it (core's `PlanDefinition`, which the web container
 * passes it to): the bulk part required; no transactional part means the platform's
 * TRANSACTIONAL_RATE_PER_SEC / _BURST, no quota means none. The bounds are the admin API's.
 */
const whole = (min: number, max: number) =>
  z.number('expected a whole number').int('expected a whole number').min(min).max(max)

const planDefinition = z.strictObject({
  ratePerSec: whole(1, 100_000),
  burst: whole(1, 1_000_000),
  weight: whole(1, 1_000),
  transactional: z
    .strictObject({ ratePerSec: whole(1, 100_000), burst: whole(1, 1_000_000) })
    .nullable()
    .default(null),
  quota: z
    .strictObject({
      daily: whole(0, 1_000_000_000).nullable().default(null),
      monthly: whole(0, 1_000_000_000).nullable().default(null),
    })
    .default({ daily: null, monthly: null }),
})

export type ConfiguredPlan = z.infer<typeof planDefinition>

const planCatalog = z.record(
  z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'expected plan names of lowercase letters, digits and dashes'),
  planDefinition,
)

/** `{ "pro": { … } }` → the plans, or one line naming the plan and field that is wrong. */
export function parsePlans(text: string): { plans: Record<string, ConfiguredPlan> } | { problem: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return {
      problem: `expected JSON such as {"pro":{"ratePerSec":50,"burst":100,"weight":4}}: ${(error as Error).message}`,
    }
  }
  const parsed = planCatalog.safeParse(json)
  if (parsed.success) return { plans: parsed.data }
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown field ${issue.keys.join(', ')}`
      : issue?.code === 'invalid_key'
        ? 'is not a plan name (lowercase letters, digits and dashes)'
        : (issue?.message ?? 'invalid')
  return {
    problem: `expected named plans ({ "<name>": { ratePerSec, burst, weight, transactional?, quota? } }); ${where}${message}`,
  }
}

/** `PLANS`: named plans as JSON, adding to or replacing the built-in free, standard and pro. */
export const plansVariable = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined) return undefined
    const read = parsePlans(value)
    if ('problem' in read) {
      context.addIssue({ code: 'custom', message: read.problem })
      return z.NEVER
    }
    return read.plans
  })

/** `PLANS_FILE`: the same as a JSON file's path, read once at boot. */
export const plansFileVariable = z
  .string()
  .trim()
  .min(1, 'expected the path of a JSON file')
  .optional()
  .transform((path, context) => {
    if (path === undefined) return undefined
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      context.addIssue({ code: 'custom', message: `cannot read ${path}: ${(error as Error).message}` })
      return z.NEVER
    }
    const read = parsePlans(text)
    if ('problem' in read) {
      context.addIssue({ code: 'custom', message: `${path}: ${read.problem}` })
      return z.NEVER
    }
    return read.plans
  })
