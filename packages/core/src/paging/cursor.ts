import { z } from 'zod'

/**
 * Keyset pages of the public API: a page's `nextCursor` is its last row's key as base64url, and the
 * next request starts right after that row. A cursor that does not decode to a key the list accepts,
 * and encode back to itself, is refused, never guessed at.
 */
const CURSOR_REFUSED = 'is not a cursor this API gave out'

export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url')
}

/** The `cursor` query field: the decoded key, or a 400 naming `cursor` when `accepts` refuses it. */
export function cursorField(options: { maxLength: number; accepts(key: string): boolean }) {
  return z
    .string()
    .max(options.maxLength, CURSOR_REFUSED)
    .transform((cursor, context) => {
      const key = Buffer.from(cursor, 'base64url').toString('utf8')
      if (!options.accepts(key) || encodeCursor(key) !== cursor) {
        context.addIssue({ code: 'custom', message: CURSOR_REFUSED })
        return z.NEVER
      }
      return key
    })
    .optional()
    .meta({ description: 'The `nextCursor` of the previous page' })
}

/** The `limit` query field: a whole number from 1 to `max`. */
export function pageLimitField(max: number) {
  return z.coerce
    .number('must be a number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .optional()
}
