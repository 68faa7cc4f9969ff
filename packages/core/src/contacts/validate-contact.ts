import type { FieldIssue } from '../errors/app-error'
import { dotted, fieldIssues } from '../errors/zod-issues'
import { type ContactFields, contactSchema } from './contact-rules'

export type ContactValidation = { ok: true; contact: ContactFields } | { ok: false; issues: FieldIssue[] }

/**
 * Normalises and validates one contact. `path` prefixes each issue (`contacts[3]` → `contacts[3].email`)
 * so a caller validating many names the exact entry.
 */
export function validateContact(input: unknown, path: readonly PropertyKey[] = []): ContactValidation {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, issues: [{ path: dotted(path), message: 'must be an object with an email' }] }
  }
  const result = contactSchema.safeParse(input)
  if (!result.success) return { ok: false, issues: fieldIssues(result.error, path) }
  return { ok: true, contact: result.data }
}
