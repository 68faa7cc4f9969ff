import { ATTRIBUTE_KEY, MAX_ATTRIBUTES } from './contact-rules'

/** Where a CSV file keeps each field, read from its header row. */
export interface CsvColumns {
  emailIndex: number
  nameIndex: number | null
  /** Every other named column becomes an attribute under `key` (usable as `{{key}}`). */
  attributes: { index: number; key: string }[]
  /** Header cells: a data row with more non-empty cells than this is broken. */
  width: number
  /** Columns left out, said in the report so nothing disappears unexplained. */
  ignored: string[]
}

export type CsvHeaderResult = { ok: true; columns: CsvColumns } | { ok: false; message: string }

/** Header names read as the email column, any case (the suppression import reads the same). */
export const EMAIL_HEADERS: ReadonlySet<string> = new Set([
  'email',
  'e-mail',
  'email address',
  'email_address',
])

/**
 * Reads the header row: `email` is required and `name` optional (any case); other columns become
 * attributes, their names made into template-safe keys ("First Name" → `First_Name`). A file whose
 * header is one cell without an email almost always was split with the wrong delimiter, so that
 * case gets its own message.
 */
export function readCsvHeader(header: readonly string[]): CsvHeaderResult {
  const cells = header.map((cell, index) => (index === 0 ? cell.replace(/^\uFEFF/, '') : cell).trim())
  const emails = cells.flatMap((cell, index) => (EMAIL_HEADERS.has(cell.toLowerCase()) ? [index] : []))
  if (emails.length === 0) return { ok: false, message: missingEmailMessage(cells) }
  if (emails.length > 1) {
    return { ok: false, message: `The header has ${emails.length} email columns; keep exactly one.` }
  }
  const emailIndex = emails[0] as number
  const names = cells.flatMap((cell, index) => (cell.toLowerCase() === 'name' ? [index] : []))
  if (names.length > 1) return { ok: false, message: 'The header has two name columns; keep at most one.' }
  const nameIndex = names[0] ?? null
  const attributes: CsvColumns['attributes'] = []
  const ignored: string[] = []
  const keys = new Map<string, string>()
  for (const [index, cell] of cells.entries()) {
    if (index === emailIndex || index === nameIndex) continue
    if (cell === '') {
      ignored.push(`column ${index + 1} has no header and is ignored`)
      continue
    }
    const key = attributeKeyOf(cell)
    const clash = keys.get(key.toLowerCase())
    if (clash !== undefined) {
      return {
        ok: false,
        message: `The columns "${clash}" and "${cell}" would both become the attribute ${key}; rename one.`,
      }
    }
    keys.set(key.toLowerCase(), cell)
    attributes.push({ index, key })
  }
  if (attributes.length > MAX_ATTRIBUTES) {
    return {
      ok: false,
      message: `Too many columns: ${attributes.length} besides email and name, at most ${MAX_ATTRIBUTES} are allowed.`,
    }
  }
  return { ok: true, columns: { emailIndex, nameIndex, attributes, width: cells.length, ignored } }
}

function missingEmailMessage(cells: string[]): string {
  const shown = cells
    .slice(0, 5)
    .map((cell) => JSON.stringify(cell))
    .join(', ')
  if (cells.length <= 1) {
    return `Could not find an email column; is the delimiter right? The header row was read as one column (${shown}). Use commas, semicolons or tabs between columns, with a column named email.`
  }
  return `Could not find an email column: the header row needs a column named email (found ${shown}${cells.length > 5 ? ', …' : ''}).`
}

/** A header made into an attribute key: other characters become `_`, a leading digit gets a `_`. */
export function attributeKeyOf(header: string): string {
  let key = header.trim().replace(/[^A-Za-z0-9_]+/g, '_')
  if (!/^[A-Za-z_]/.test(key)) key = `_${key}`
  key = key.slice(0, 64)
  return ATTRIBUTE_KEY.test(key) ? key : '_'
}
