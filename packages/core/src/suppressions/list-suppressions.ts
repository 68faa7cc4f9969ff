import { z } from 'zod'
import { MAX_EMAIL_LENGTH, normaliseEmail } from '../contacts/contact-rules'
import { SUPPRESSION_REASONS } from '../domain/statuses'
import { SUPPRESSION_SCOPES } from '../domain/suppression-scopes'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { cursorField, encodeCursor, pageLimitField } from '../paging/cursor'
import type { SuppressionEntry, SuppressionQuery, SuppressionStore } from './ports'

export const DEFAULT_SUPPRESSIONS_PAGE = 100
export const MAX_SUPPRESSIONS_PAGE = 1000

/** The filters the list and the CSV export share. */
const filters = {
  email: z
    .string()
    .transform(normaliseEmail)
    .pipe(z.string().max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`))
    .optional()
    .meta({
      description:
        'A part of the address, any case: `example.com` finds every address at that domain, a whole address finds it',
    }),
  reason: z.enum(SUPPRESSION_REASONS, `must be one of ${SUPPRESSION_REASONS.join(', ')}`).optional(),
  scope: z.enum(SUPPRESSION_SCOPES, `must be one of ${SUPPRESSION_SCOPES.join(', ')}`).optional(),
}

/** The query of `GET /api/v1/suppressions/export` (the API document renders it). */
export const suppressionsFilterSchema = z.strictObject(filters)

/** The query of `GET /api/v1/suppressions` (the API document renders it). */
export const suppressionsQuerySchema = z.strictObject({
  ...filters,
  cursor: cursorField({ maxLength: 400, accepts: (email) => email !== '' }),
  limit: pageLimitField(MAX_SUPPRESSIONS_PAGE),
})

export interface SuppressionPage {
  items: SuppressionEntry[]
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string
}

// The cursor is the page's last address: the list is in address order, which the primary key
// `(tenant_id, email)` keeps unique and stable, so a page starts right after it whatever was added
// or removed meanwhile.

/** `?email=` (empty) counts as absent; an unknown parameter is a 400 naming it. */
function parseQuery<Schema extends z.ZodType>(
  schema: Schema,
  query: Record<string, string>,
): z.output<Schema> {
  const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''))
  const parsed = schema.safeParse(given)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}

function storeFilters(
  tenantId: string,
  parsed: z.output<typeof suppressionsFilterSchema>,
): Omit<SuppressionQuery, 'limit'> {
  return {
    tenantId,
    ...(parsed.email ? { emailContains: parsed.email } : {}),
    ...(parsed.reason ? { reason: parsed.reason } : {}),
    ...(parsed.scope ? { scope: parsed.scope } : {}),
  }
}

/**
 * `GET /api/v1/suppressions?email=&reason=&scope=&cursor=&limit=`: the tenant's suppression list in
 * address order, keyset-paged. `email` matches a part of the address, case-blind (addresses are
 * stored lowercased), so a domain or a whole address both find what they name.
 */
export async function listSuppressions(
  input: { tenantId: string; query: Record<string, string> },
  deps: { store: SuppressionStore },
): Promise<SuppressionPage> {
  const {
    cursor,
    limit = DEFAULT_SUPPRESSIONS_PAGE,
    ...filters
  } = parseQuery(suppressionsQuerySchema, input.query)
  const rows = await deps.store.list({
    ...storeFilters(input.tenantId, filters),
    ...(cursor ? { after: cursor } : {}),
    limit: limit + 1,
  })
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  return rows.length > limit && last ? { items, nextCursor: encodeCursor(last.email) } : { items }
}

/** Rows per read of the export: each read is one keyset page, so memory stays flat however long the list. */
export const SUPPRESSIONS_EXPORT_PAGE = 1000

/**
 * `GET /api/v1/suppressions/export?email=&reason=&scope=`: every matching entry, a page at a time.
 * The query is checked now (a bad one is a 400 before anything is streamed); the pages are read as
 * the caller pulls them.
 */
export function exportSuppressions(
  input: { tenantId: string; query: Record<string, string> },
  deps: { store: SuppressionStore },
): AsyncIterable<SuppressionEntry[]> {
  const query = storeFilters(input.tenantId, parseQuery(suppressionsFilterSchema, input.query))
  return {
    async *[Symbol.asyncIterator]() {
      let after: string | undefined
      for (;;) {
        const rows = await deps.store.list({
          ...query,
          ...(after ? { after } : {}),
          limit: SUPPRESSIONS_EXPORT_PAGE,
        })
        if (rows.length > 0) yield rows
        const last = rows.at(-1)
        if (rows.length < SUPPRESSIONS_EXPORT_PAGE || !last) return
        after = last.email
      }
    },
  }
}
