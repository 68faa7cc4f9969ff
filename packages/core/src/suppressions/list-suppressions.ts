import { z } from 'zod'
import { emailSchema } from '../contacts/contact-rules'
import { SUPPRESSION_REASONS } from '../domain/statuses'
import { SUPPRESSION_SCOPES } from '../domain/suppression-scopes'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SuppressionEntry, SuppressionStore } from './ports'

export const DEFAULT_SUPPRESSIONS_PAGE = 100
export const MAX_SUPPRESSIONS_PAGE = 1000

/** The query of `GET /api/v1/suppressions` (the API document renders it). */
export const suppressionsQuerySchema = z.strictObject({
  email: emailSchema.optional(),
  reason: z.enum(SUPPRESSION_REASONS, `must be one of ${SUPPRESSION_REASONS.join(', ')}`).optional(),
  scope: z.enum(SUPPRESSION_SCOPES, `must be one of ${SUPPRESSION_SCOPES.join(', ')}`).optional(),
  cursor: z
    .string()
    .max(400, 'is not a cursor this API gave out')
    .transform((cursor, context) => {
      const email = Buffer.from(cursor, 'base64url').toString('utf8')
      if (email === '' || Buffer.from(email, 'utf8').toString('base64url') !== cursor) {
        context.addIssue({ code: 'custom', message: 'is not a cursor this API gave out' })
        return z.NEVER
      }
      return email
    })
    .optional(),
  limit: z.coerce
    .number('must be a number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_SUPPRESSIONS_PAGE, `must be at most ${MAX_SUPPRESSIONS_PAGE}`)
    .optional(),
})

export interface SuppressionPage {
  items: SuppressionEntry[]
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string
}

/**
 * `GET /api/v1/suppressions?email=&reason=&scope=&cursor=&limit=`: the tenant's suppression list in
 * email order, keyset-paged. An empty parameter (`?email=`) counts as absent; an unknown one is a 400
 * naming it, so a misspelt filter never silently lists everything.
 */
export async function listSuppressions(
  input: { tenantId: string; query: Record<string, string> },
  deps: { store: SuppressionStore },
): Promise<SuppressionPage> {
  const given = Object.fromEntries(Object.entries(input.query).filter(([, value]) => value !== ''))
  const parsed = suppressionsQuerySchema.safeParse(given)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { cursor, limit = DEFAULT_SUPPRESSIONS_PAGE, ...filters } = parsed.data
  const rows = await deps.store.list({
    tenantId: input.tenantId,
    ...filters,
    after: cursor,
    limit: limit + 1,
  })
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  return rows.length > limit && last
    ? { items, nextCursor: Buffer.from(last.email, 'utf8').toString('base64url') }
    : { items }
}
