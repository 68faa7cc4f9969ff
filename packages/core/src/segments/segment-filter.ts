import { z } from 'zod'
import { ATTRIBUTE_KEY, MAX_ATTRIBUTE_VALUE_LENGTH, RESERVED_ATTRIBUTE_KEYS } from '../contacts/contact-rules'
import { type FieldIssue, validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'

/**
 * A segment's filter: conditions on a contact's attributes and creation date, all of which must
 * hold (AND). It is data, never SQL: `@fairlane/db` compiles it with every key and value as a
 * parameter. Attribute values compare as text, exactly (case matters), the way `{{city}}` renders:
 * `plan = 3` matches the string "3" and the number 3. Dates are whole UTC days.
 */
export const FILTER_OPERATORS = [
  'equals',
  'not-equals',
  'in',
  'exists',
  'created-before',
  'created-after',
] as const
export type FilterOperator = (typeof FILTER_OPERATORS)[number]

export const MAX_FILTER_CONDITIONS = 20
export const MAX_IN_VALUES = 100

export type FilterCondition =
  | { op: 'equals' | 'not-equals'; attribute: string; value: string }
  | { op: 'in'; attribute: string; values: string[] }
  | { op: 'exists'; attribute: string }
  | { op: 'created-before' | 'created-after'; date: string }

export interface SegmentFilter {
  conditions: FilterCondition[]
}

const OPERATOR_LIST = FILTER_OPERATORS.join(', ')
const KEY_RULE = 'must start with a letter or _ and hold only letters, digits and _ (at most 64)'

const attribute = z.string('must be an attribute name').superRefine((key, context) => {
  if (!ATTRIBUTE_KEY.test(key)) {
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(key)} is not an attribute name: ${KEY_RULE}`,
    })
  } else if (RESERVED_ATTRIBUTE_KEYS.includes(key.toLowerCase())) {
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(key)} is the contact's own field, not an attribute (use the search box)`,
    })
  }
})
const value = z
  .string('must be a string')
  .max(MAX_ATTRIBUTE_VALUE_LENGTH, `must be at most ${MAX_ATTRIBUTE_VALUE_LENGTH} characters`)
const day = z.iso.date('must be a date as YYYY-MM-DD')

const CONDITION_SCHEMAS = {
  equals: z.strictObject({ op: z.literal('equals'), attribute, value }),
  'not-equals': z.strictObject({ op: z.literal('not-equals'), attribute, value }),
  in: z.strictObject({
    op: z.literal('in'),
    attribute,
    values: z
      .array(value, 'must be a list of values')
      .min(1, 'must hold at least one value')
      .max(MAX_IN_VALUES, `must hold at most ${MAX_IN_VALUES} values`),
  }),
  exists: z.strictObject({ op: z.literal('exists'), attribute }),
  'created-before': z.strictObject({ op: z.literal('created-before'), date: day }),
  'created-after': z.strictObject({ op: z.literal('created-after'), date: day }),
} satisfies Record<FilterOperator, z.ZodType>

/**
 * The filter's shape as one schema, for the API document. Validation goes through `filterIssues`,
 * which names an unknown operator as such; this schema accepts exactly what it accepts.
 */
export const segmentFilterSchema = z.strictObject({
  conditions: z
    .array(
      z.discriminatedUnion('op', [
        CONDITION_SCHEMAS.equals,
        CONDITION_SCHEMAS['not-equals'],
        CONDITION_SCHEMAS.in,
        CONDITION_SCHEMAS.exists,
        CONDITION_SCHEMAS['created-before'],
        CONDITION_SCHEMAS['created-after'],
      ]),
    )
    .min(1)
    .max(MAX_FILTER_CONDITIONS)
    .describe('All must hold (AND)'),
})

function isOperator(op: unknown): op is FilterOperator {
  return typeof op === 'string' && (FILTER_OPERATORS as readonly string[]).includes(op)
}

/**
 * The filter's problems, each under its path (`conditions[1].op`), empty when it is valid. The
 * operator is checked before the rest so an unknown one is named as such, not as a shape mismatch.
 */
export function filterIssues(input: unknown, prefix = ''): FieldIssue[] {
  const at = (path: string) => (prefix === '' ? path : `${prefix}.${path}`)
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return [{ path: prefix || 'filter', message: 'must be an object { "conditions": [...] }' }]
  }
  const { conditions, ...rest } = input as Record<string, unknown>
  const issues: FieldIssue[] = Object.keys(rest).map((key) => ({
    path: at(key),
    message: 'is not a recognized field',
  }))
  if (!Array.isArray(conditions)) return [...issues, { path: at('conditions'), message: 'must be a list' }]
  if (conditions.length === 0)
    issues.push({ path: at('conditions'), message: 'must hold at least one condition' })
  if (conditions.length > MAX_FILTER_CONDITIONS) {
    issues.push({ path: at('conditions'), message: `must hold at most ${MAX_FILTER_CONDITIONS} conditions` })
  }
  conditions.slice(0, MAX_FILTER_CONDITIONS).forEach((condition, index) => {
    const path = at(`conditions[${index}]`)
    const op =
      typeof condition === 'object' && condition !== null ? (condition as { op?: unknown }).op : undefined
    if (!isOperator(op)) {
      const named = op === undefined ? 'is required' : `unknown operator ${JSON.stringify(op)}`
      issues.push({ path: `${path}.op`, message: `${named}: use one of ${OPERATOR_LIST}` })
      return
    }
    const parsed = CONDITION_SCHEMAS[op].safeParse(condition)
    if (!parsed.success)
      issues.push(...fieldIssues(parsed.error).map((issue) => ({ ...issue, path: `${path}.${issue.path}` })))
  })
  return issues
}

/** A filter from JSON (the API, a stored segment); throws a 400 naming each bad field under `path`. */
export function parseSegmentFilter(input: unknown, path = 'filter'): SegmentFilter {
  const issues = filterIssues(input, path)
  if (issues.length > 0) throw validationFailed(issues)
  const conditions = (input as { conditions: unknown[] }).conditions.map((condition) => {
    const op = (condition as { op: FilterOperator }).op
    return CONDITION_SCHEMAS[op].parse(condition) as FilterCondition
  })
  return { conditions }
}

/** The first instant a `created-*` condition compares with: the day's start, or the next day's for "after". */
export function createdBoundary(condition: { op: 'created-before' | 'created-after'; date: string }): Date {
  const start = new Date(`${condition.date}T00:00:00Z`)
  if (condition.op === 'created-before') return start
  return new Date(start.getTime() + 24 * 60 * 60 * 1000)
}
