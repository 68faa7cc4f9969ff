import { z } from 'zod'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { cursorField, encodeCursor, pageLimitField } from '../paging/cursor'
import type { TemplateStore, TemplateSummary } from './ports'
import { TEMPLATE_SLUG_PATTERN } from './template-request'

export const DEFAULT_TEMPLATES_PAGE = 100
export const MAX_TEMPLATES_PAGE = 500

/** The query of `GET /api/v1/templates` (the API document renders it). */
export const templatesQuerySchema = z.strictObject({
  cursor: cursorField({ maxLength: 200, accepts: (slug) => TEMPLATE_SLUG_PATTERN.test(slug) }),
  limit: pageLimitField(MAX_TEMPLATES_PAGE),
})

export interface TemplatePage {
  items: TemplateSummary[]
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string
}

/**
 * `GET /api/v1/templates?cursor=&limit=` and the Templates page: the tenant's templates by slug,
 * keyset-paged, without their bodies (up to 512 KB each: `GET /api/v1/templates/:slug` has them).
 * The cursor is the page's last slug, unique per tenant, so a page starts right after it whatever
 * was added or deleted meanwhile.
 */
export async function listTemplates(
  input: { tenantId: string; query: Record<string, string> },
  deps: { store: TemplateStore },
): Promise<TemplatePage> {
  const given = Object.fromEntries(Object.entries(input.query).filter(([, value]) => value !== ''))
  const parsed = templatesQuerySchema.safeParse(given)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { cursor, limit = DEFAULT_TEMPLATES_PAGE } = parsed.data
  const rows = await deps.store.listTemplates({
    tenantId: input.tenantId,
    ...(cursor ? { afterSlug: cursor } : {}),
    limit: limit + 1,
  })
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  return rows.length > limit && last ? { items, nextCursor: encodeCursor(last.slug) } : { items }
}
