/** The plan editor's fields, as the PATCH body names them. */
export const PLAN_FIELDS = ['ratePerSec', 'burst', 'weight'] as const
export type PlanField = (typeof PLAN_FIELDS)[number]
export type Plan = Record<PlanField, number>

/**
 * Checks the editor's text before it is sent, with the server's rules (rate and burst whole numbers of
 * at least 1, weight a whole number of at least 1), so a slip is shown at once; the server checks
 * again and its answer, naming the field, is shown the same way.
 */
export function validatePlan(
  input: Record<PlanField, string>,
): { plan: Plan } | { errors: Partial<Record<PlanField, string>> } {
  const errors: Partial<Record<PlanField, string>> = {}
  const plan = {} as Plan
  for (const field of PLAN_FIELDS) {
    const text = input[field].trim()
    const value = Number(text)
    if (text === '' || !Number.isFinite(value)) errors[field] = 'Enter a number'
    else if (!Number.isInteger(value)) errors[field] = 'Use a whole number'
    else if (value < 1) errors[field] = field === 'ratePerSec' ? 'Must be more than 0' : 'Must be at least 1'
    else plan[field] = value
  }
  return Object.keys(errors).length > 0 ? { errors } : { plan }
}

/** `plan.weight` of a 400's details → `weight`. */
export function planFieldOf(path: string): PlanField | null {
  const field = path.replace(/^plan\./, '')
  return (PLAN_FIELDS as readonly string[]).includes(field) ? (field as PlanField) : null
}
