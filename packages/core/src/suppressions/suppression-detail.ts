import { z } from 'zod'

/** A manual entry's note, or an imported row's `detail`: shown beside the address, quoted when removing it. */
export const MAX_SUPPRESSION_DETAIL_LENGTH = 1000

// Control characters (CR and LF among them) would break the one line the page and the CSV export show.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/

/** Why the text cannot be a detail, or null when it can (trim it first). */
export function suppressionDetailProblem(detail: string): string | null {
  if (detail.length > MAX_SUPPRESSION_DETAIL_LENGTH) {
    return `must be at most ${MAX_SUPPRESSION_DETAIL_LENGTH} characters`
  }
  if (CONTROL_CHARACTERS.test(detail)) return 'must be one line of text, without control characters'
  return null
}

/** `detail` in a request: trimmed; empty reads as none. */
export const suppressionDetailSchema = z
  .string('must be a string')
  .transform((detail, context) => {
    const trimmed = detail.trim()
    const problem = suppressionDetailProblem(trimmed)
    if (problem !== null) {
      context.addIssue({ code: 'custom', message: problem })
      return z.NEVER
    }
    return trimmed === '' ? null : trimmed
  })
  .meta({
    description: `Why, in your words (at most ${MAX_SUPPRESSION_DETAIL_LENGTH} characters, one line): shown beside the address`,
  })
