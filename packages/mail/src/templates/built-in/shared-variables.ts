import { HEADER_UNSAFE_MESSAGE, isHeaderSafe } from '@fairlane/core/accept'
import { z } from 'zod'

/** Variables the built-in templates share. `appName` goes into the subject, so it must be one line. */
export const appName = z
  .string('must be a string')
  .refine(isHeaderSafe, HEADER_UNSAFE_MESSAGE)
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
  .optional()

export const expiresInMinutes = z
  .number('must be a whole number of minutes')
  .int('must be a whole number of minutes')
  .min(1, 'must be at least 1')
  .max(1440, 'must be at most 1440 (24 hours)')
  .optional()

export function expiryLine(minutes: number | undefined, what: string): string | null {
  if (minutes === undefined) return null
  return `This ${what} expires in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`
}

/** A link the reader clicks (reset, verification): absolute http(s), exactly as given. */
export const linkUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .max(2048, 'must be at most 2048 characters')
  // The URL parser silently drops tabs and line breaks; refuse them instead of sending a changed link.
  .refine(
    (value) => isHeaderSafe(value) && !/\s/.test(value),
    'must not contain spaces or control characters',
  )
  .refine(isHttpUrl, 'must be an absolute http:// or https:// URL')

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
  } catch {
    return false
  }
}
