import { z } from 'zod'
import { AppError, type FieldIssue, validationFailed } from '../errors/app-error'
import { type ContactFields, contactSchema } from './contact-rules'
import { validateContact } from './validate-contact'

/** Per call of `POST /api/v1/contacts`; more is refused whole (413) rather than half-imported. */
export const MAX_CONTACTS_PER_REQUEST = 10_000
/** Issues reported per 400: enough to fix a batch, bounded so a wholly wrong body stays small. */
const MAX_REPORTED_ISSUES = 100

/**
 * The body's shape as a schema, for the API document (`/api/v1/openapi.json`). Each entry is the same
 * `contactSchema` the parser below applies; the parser walks the list itself so that it can answer 413
 * past the limit, report each bad entry under `contacts[i]` and refuse a repeated email.
 */
export const contactsRequestSchema = z.strictObject({
  contacts: z.array(contactSchema).min(1).max(MAX_CONTACTS_PER_REQUEST),
})

/**
 * The body `{ "contacts": [{ email, name?, attributes? }] }`. Every entry is checked before anything is
 * written, so a 400 changes nothing. An email given twice is refused too: which of the two should win
 * is the caller's decision, not ours.
 */
export function parseContactsRequest(input: unknown): ContactFields[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw validationFailed([{ path: '', message: 'the body must be a JSON object with "contacts"' }])
  }
  const unknown = Object.keys(input).filter((key) => key !== 'contacts')
  const list = (input as { contacts?: unknown }).contacts
  if (!Array.isArray(list)) {
    throw validationFailed([
      { path: 'contacts', message: list === undefined ? 'is required' : 'must be an array' },
      ...unknown.map((key) => ({ path: key, message: 'is not a recognized field' })),
    ])
  }
  if (list.length > MAX_CONTACTS_PER_REQUEST) {
    throw new AppError(
      'payload_too_large',
      `Too many contacts: ${list.length} in one call, the limit is ${MAX_CONTACTS_PER_REQUEST}; send them in several calls`,
      { details: [{ path: 'contacts', message: `must have at most ${MAX_CONTACTS_PER_REQUEST} entries` }] },
    )
  }
  const issues: FieldIssue[] = unknown.map((key) => ({ path: key, message: 'is not a recognized field' }))
  if (list.length === 0) issues.push({ path: 'contacts', message: 'must have at least one contact' })
  const contacts: ContactFields[] = []
  const firstIndex = new Map<string, number>()
  list.forEach((entry, index) => {
    const result = validateContact(entry, ['contacts', index])
    if (!result.ok) {
      issues.push(...result.issues)
      return
    }
    const seen = firstIndex.get(result.contact.email)
    if (seen !== undefined) {
      issues.push({ path: `contacts[${index}].email`, message: `repeats contacts[${seen}].email` })
      return
    }
    firstIndex.set(result.contact.email, index)
    contacts.push(result.contact)
  })
  if (issues.length > 0) throw validationFailed(issues.slice(0, MAX_REPORTED_ISSUES))
  return contacts
}
