import type { FieldIssue } from '../errors/app-error'

export const MAX_SEGMENT_NAME_LENGTH = 100

/** A segment name trimmed, or the issue naming `name`. Names are unique per tenant (checked by the database). */
export function validateSegmentName(
  input: unknown,
): { ok: true; name: string } | { ok: false; issue: FieldIssue } {
  const name = typeof input === 'string' ? input.trim() : ''
  if (name === '')
    return { ok: false, issue: { path: 'name', message: 'is required: give the segment a name' } }
  if (name.length > MAX_SEGMENT_NAME_LENGTH) {
    return {
      ok: false,
      issue: { path: 'name', message: `must be at most ${MAX_SEGMENT_NAME_LENGTH} characters` },
    }
  }
  return { ok: true, name }
}
