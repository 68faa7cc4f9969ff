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
