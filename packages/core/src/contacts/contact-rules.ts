import { z } from 'zod'
import { emailAddress } from '../domain/email-address'

/**
 * What a contact may hold. Attribute keys double as `{{variables}}` in campaign templates, so they
 * follow identifier rules; values stay flat (string, number, boolean) because a template renders
 * them as text and a nested object would print as "[object Object]".
 */
export const MAX_NAME_LENGTH = 200
export const MAX_EMAIL_LENGTH = 254
export const MAX_ATTRIBUTES = 50
export const MAX_ATTRIBUTE_VALUE_LENGTH = 2000
export const ATTRIBUTE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
/** `email` and `name` are the contact's own fields; as attribute keys they would shadow them in templates. */
export const RESERVED_ATTRIBUTE_KEYS: readonly string[] = ['email', 'name']

export type AttributeValue = string | number | boolean

/** A contact as stored: email lowercased and trimmed, name trimmed or null. */
export interface ContactFields {
  email: string
  name: string | null
  attributes: Record<string, AttributeValue>
}

/** The one normalisation of an address, so the API, the CSV import and the UI compare emails alike. */
export function normaliseEmail(email: string): string {
  // NFC: an internationalised address typed with combining accents compares equal to the precomposed one.
  return email.trim().normalize('NFC').toLowerCase()
}

export const emailSchema = z
  .string({
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be an email address'),
  })
  .transform(normaliseEmail)
  .pipe(
    z
      .string()
      .min(1, 'is required')
      .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
      .pipe(emailAddress()),
  )

const nameSchema = z
  .string('must be a string')
  .transform((name) => name.trim())
  .pipe(z.string().max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`))
  .nullish()
  .transform((name) => (name ? name : null))

const attributeValue = z.union(
  [
    z.string().max(MAX_ATTRIBUTE_VALUE_LENGTH, `must be at most ${MAX_ATTRIBUTE_VALUE_LENGTH} characters`),
    z.number().finite(),
    z.boolean(),
  ],
  { error: 'must be a string, a number or true/false (no objects, arrays or null)' },
)

const KEY_MESSAGE = 'must start with a letter or _ and hold only letters, digits and _ (at most 64)'

const attributesSchema = z
  .record(z.string(), attributeValue, {
    error: (issue) => (issue.code === 'invalid_type' ? 'must be an object of names to values' : undefined),
  })
  // Keys are checked here rather than by a key schema so each bad key is reported under its own path.
  .superRefine((value, context) => {
    const keys = Object.keys(value)
    if (keys.length > MAX_ATTRIBUTES) {
      context.addIssue({ code: 'custom', message: `must have at most ${MAX_ATTRIBUTES} keys` })
    }
    for (const key of keys) {
      if (!ATTRIBUTE_KEY.test(key)) context.addIssue({ code: 'custom', path: [key], message: KEY_MESSAGE })
      else if (RESERVED_ATTRIBUTE_KEYS.includes(key.toLowerCase())) {
        context.addIssue({ code: 'custom', path: [key], message: 'is reserved (email, name)' })
      }
    }
  })
  .optional()
  .transform((value) => value ?? {})
  .describe('Up to 50 flat values (string, number, true/false), usable as {{key}} in campaigns')

/** One contact as the API and the forms accept it; unknown fields are refused so typos are not lost. */
export const contactSchema = z.strictObject({
  email: emailSchema,
  name: nameSchema,
  attributes: attributesSchema,
})
