/**
 * Relaxed header canonicalisation (RFC 6376 §3.4.2) over a header block read as latin1, one
 * character per byte, so 8-bit header bytes (a raw UTF-8 display name) are signed as they are.
 */

/** One header field: its lowercased name and its raw text, folds and all, without the final CRLF. */
interface HeaderField {
  name: string
  text: string
}

/**
 * The header fields of `block` (the message's header lines, each ended by CRLF), in order. A line
 * that starts with SP or HTAB continues the field before it; a line without a colon is no field.
 */
export function headerFields(block: string): HeaderField[] {
  const fields: HeaderField[] = []
  let start = 0
  while (start < block.length) {
    let end = block.indexOf('\r\n', start)
    if (end === -1) end = block.length
    // A field ends at the first line end not followed by a folding space or tab.
    while (end < block.length && isFoldingSpace(block.charCodeAt(end + 2))) {
      const next = block.indexOf('\r\n', end + 2)
      end = next === -1 ? block.length : next
    }
    const text = block.slice(start, end)
    const colon = text.indexOf(':')
    if (colon > 0) fields.push({ name: stripWhitespace(text.slice(0, colon)).toLowerCase(), text })
    start = end + 2
  }
  return fields
}

/**
 * The fields a signature covers, canonicalised, and their names for `h=`: for each listed name the
 * last field of that name (RFC 6376 §5.4.2: signers take instances from the bottom up), in the list's
 * order; names the message lacks are left out.
 */
export function signedHeaders(
  fields: readonly HeaderField[],
  names: readonly string[],
): { canonical: string; names: string } {
  let canonical = ''
  const signed: string[] = []
  for (const name of names) {
    for (let i = fields.length - 1; i >= 0; i--) {
      const field = fields[i] as HeaderField
      if (field.name !== name) continue
      canonical += `${relaxedField(field)}\r\n`
      signed.push(name)
      break
    }
  }
  return { canonical, names: signed.join(':') }
}

/** `name:value` relaxed: lowercase name, unfolded, each SP/HTAB run one SP, none around the colon or at the end. */
export function relaxedField(field: HeaderField): string {
  let value = field.text.slice(field.text.indexOf(':') + 1)
  // Most fields have no fold and no run to collapse: no regex pass over them then.
  if (value.includes('\r\n')) value = value.replace(/\r\n/g, '')
  if (value.includes('\t') || value.includes('  ')) value = value.replace(/[ \t]+/g, ' ')
  return `${field.name}:${stripWhitespace(value)}`
}

/** SP and HTAB only: `trim()` would also take latin1's 0xA0, the second byte of many UTF-8 letters. */
function stripWhitespace(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && isFoldingSpace(text.charCodeAt(start))) start++
  while (end > start && isFoldingSpace(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

function isFoldingSpace(code: number): boolean {
  return code === 0x20 || code === 0x09
}
