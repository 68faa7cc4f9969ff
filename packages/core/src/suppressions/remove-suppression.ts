import { z } from 'zod'
import type { AuditOf } from '../audit/audit-record'
import { emailSchema } from '../contacts/contact-rules'
import { SUPPRESSION_SCOPES } from '../domain/suppression-scopes'
import { AppError, validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SuppressionEntry, SuppressionStore } from './ports'

const inputSchema = z.strictObject({
  email: emailSchema,
  scope: z.enum(SUPPRESSION_SCOPES, `must be one of ${SUPPRESSION_SCOPES.join(', ')}`).optional(),
})

/**
 * `DELETE /api/v1/suppressions/:email[?scope=]`: the address may be mailed again, and its soft-bounce
 * count starts again from nothing. With `scope`, only an entry of that scope is removed (a client that
 * means "lift the unsubscribe" cannot lift a bounce by accident). A contact who unsubscribed stays
 * unsubscribed (`unsubscribed_at`): that is the person's choice, undone only by the contact page's
 * audited "Resubscribe (on their request)". Answers the entry removed; another tenant's address, like
 * one not listed, is a 404.
 */
export async function removeSuppression(
  input: {
    tenantId: string
    email: string
    query: Record<string, string>
    /** The removal's audit entry, written with it. */
    audit?: AuditOf<SuppressionEntry> | undefined
  },
  deps: { store: SuppressionStore },
): Promise<SuppressionEntry> {
  const given = Object.fromEntries(Object.entries(input.query).filter(([, value]) => value !== ''))
  const parsed = inputSchema.safeParse({ ...given, email: input.email })
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const removed = await deps.store.remove({ tenantId: input.tenantId, ...parsed.data }, input.audit)
  if (removed === null) {
    const scoped = parsed.data.scope ? ` with scope ${parsed.data.scope}` : ''
    throw new AppError('not_found', `${parsed.data.email} is not on the suppression list${scoped}`)
  }
  return removed
}
