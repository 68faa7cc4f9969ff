import { z } from 'zod'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { cursorField, encodeCursor } from '../paging/cursor'

/**
 * The audit page's query: `action` (exact), `actor` (part of the label, any case), `from` and `to`
 * (calendar days, `YYYY-MM-DD`, in UTC; `to` includes its whole day) and `cursor` (the last entry
 * id of the previous page). Anything else in the query is ignored; a bad field is a 400 naming it.
 */
export interface AuditFilter {
  action?: string
  actor?: string
  from?: Date
  /** Exclusive: the start of the day after the `to` asked for. */
  to?: Date
  beforeId?: number
}

const DAY_MS = 24 * 60 * 60 * 1000
const ID_KEY = /^[1-9][0-9]{0,15}$/

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-12-31')
  .transform((text, context) => {
    const date = new Date(`${text}T00:00:00.000Z`)
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
      context.addIssue({ code: 'custom', message: 'is not a day of the calendar' })
      return z.NEVER
    }
    return date
  })

const blankToUndefined = (value: unknown) => (value === '' ? undefined : value)

const auditQuery = z
  .object({
    action: z.preprocess(
      blankToUndefined,
      z.string().trim().max(100, 'must be at most 100 characters').optional(),
    ),
    actor: z.preprocess(
      blankToUndefined,
      z.string().trim().max(200, 'must be at most 200 characters').optional(),
    ),
    from: z.preprocess(blankToUndefined, day.optional()),
    to: z.preprocess(blankToUndefined, day.optional()),
    cursor: z.preprocess(
      blankToUndefined,
      cursorField({ maxLength: 40, accepts: (key) => ID_KEY.test(key) }),
    ),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  })

export function parseAuditFilter(query: Record<string, string | undefined>): AuditFilter {
  const parsed = auditQuery.safeParse(query)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { action, actor, from, to, cursor } = parsed.data
  return {
    ...(action ? { action } : {}),
    ...(actor ? { actor } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to: new Date(to.getTime() + DAY_MS) } : {}),
    ...(cursor ? { beforeId: Number(cursor) } : {}),
  }
}

/** The next page's cursor: the last entry shown. */
export function auditCursor(lastId: number): string {
  return encodeCursor(String(lastId))
}
