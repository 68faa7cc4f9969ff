import { z } from 'zod'

const asciiEmail = z.email()
const unicodeEmail = z.email({ pattern: z.regexes.unicodeEmail })

/**
 * Whether `value` is an address Fairlane can send to: an ASCII address as zod's email check has it,
 * or an internationalised one (RFC 6531: `chloé@exemple.fr`, `用户@例子.广告`) with a dotted domain.
 * Internationalised addresses go out with SMTPUTF8 (nodemailer adds it when the relay offers it); a
 * relay without it refuses them, and the message fails with the relay's reply.
 */
export function isEmailAddress(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, on purpose
  if (/^[\x00-\x7f]*$/.test(value)) return asciiEmail.safeParse(value).success
  return unicodeEmail.safeParse(value).success && /@[^@.]+(\.[^@.]+)+$/.test(value)
}

export const EMAIL_ADDRESS_MESSAGE = 'must be a valid email address such as user@example.com'

/** A string check for an email address, with the one message the API, the import and the UI share. */
export function emailAddress(message = EMAIL_ADDRESS_MESSAGE) {
  return z.string().refine(isEmailAddress, message)
}
