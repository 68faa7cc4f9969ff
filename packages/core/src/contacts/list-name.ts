export const MAX_LIST_NAME_LENGTH = 100

/** A list name trimmed, or the reason it cannot be one. Names are unique per tenant (checked by the database). */
export function validateListName(
  input: unknown,
): { ok: true; name: string } | { ok: false; message: string } {
  const name = typeof input === 'string' ? input.trim() : ''
  if (name === '') return { ok: false, message: 'Give the list a name.' }
  if (name.length > MAX_LIST_NAME_LENGTH) {
    return { ok: false, message: `Use at most ${MAX_LIST_NAME_LENGTH} characters.` }
  }
  return { ok: true, name }
}

/**
 * Emails typed or pasted into "add to list": separated by commas, semicolons, spaces or new lines.
 * Normalised like stored emails; anything that is not an address is returned apart, to be shown.
 */
export function splitEmailList(text: string): { emails: string[]; invalid: string[] } {
  const emails: string[] = []
  const invalid: string[] = []
  for (const part of text.split(/[\s,;]+/)) {
    const email = part.trim().toLowerCase()
    if (email === '') continue
    // Length first: the pattern backtracks over a long run of dots, and an address is at most 254.
    if (email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      if (!emails.includes(email)) emails.push(email)
    } else invalid.push(part.trim())
  }
  return { emails, invalid }
}
