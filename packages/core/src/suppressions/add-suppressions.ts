import { z } from 'zod'
import { emailSchema } from '../contacts/contact-rules'
import { SUPPRESSION_SCOPES, type SuppressionScope } from '../domain/suppression-scopes'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SuppressionEntry, SuppressionStore } from './ports'
import { suppressionDetailSchema } from './suppression-detail'

/** Per call of `POST /api/v1/suppressions`; a longer list goes in several calls (or an import). */
export const MAX_SUPPRESSIONS_PER_REQUEST = 1000

/** The body of `POST /api/v1/suppressions` (the API document renders it). */
export const addSuppressionsRequestSchema = z.strictObject({
  emails: z
    .array(emailSchema, 'must be an array of email addresses')
    .min(1, 'must have at least one address')
    .max(MAX_SUPPRESSIONS_PER_REQUEST, `must have at most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses`),
  scope: z
    .enum(SUPPRESSION_SCOPES, `must be one of ${SUPPRESSION_SCOPES.join(', ')}`)
    .default('all' satisfies SuppressionScope),
  detail: suppressionDetailSchema.optional(),
})

/**
 * `POST /api/v1/suppressions` `{ "emails": [...], "scope"?: "all" | "marketing", "detail"? }`: manual
 * entries. Without `scope` they stop every lane (a manual entry is about the address, like a bounce);
 * `marketing` stops campaign mail only. An address already listed keeps its entry (and its detail),
 * widened to `all` if that is asked; the answer is every address's entry as it stands afterwards. The
 * same address twice in one call counts once (addresses are compared lowercased).
 */
export async function addSuppressions(
  input: { tenantId: string; body: unknown },
  deps: { store: SuppressionStore },
): Promise<SuppressionEntry[]> {
  const parsed = addSuppressionsRequestSchema.safeParse(input.body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { scope, detail = null } = parsed.data
  const emails = [...new Set(parsed.data.emails)]
  return deps.store.add({
    tenantId: input.tenantId,
    entries: emails.map((email) => ({ email, reason: 'manual', scope, detail })),
  })
}
