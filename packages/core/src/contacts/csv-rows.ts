import { type ContactFields, MAX_ATTRIBUTE_VALUE_LENGTH, normaliseEmail } from './contact-rules'
import type { CsvColumns } from './csv-header'
import { validateContact } from './validate-contact'

/** One data record of a CSV file; `line` is its 1-based record number, the header being line 1. */
export interface CsvRow {
  line: number
  cells: readonly string[]
}

export interface CsvRejectedRow {
  line: number
  /** The email cell as written, when there was one, so the report row is recognisable. */
  email: string | null
  reason: string
}

export interface CsvContact extends ContactFields {
  line: number
}

export interface PreparedCsvRows {
  contacts: CsvContact[]
  rejected: CsvRejectedRow[]
  /** Rows with no content at all (a trailing newline, spacer lines); counted, not reported one by one. */
  blank: number
}

export type CsvRowOutcome =
  | { ok: true; contact: ContactFields }
  | { ok: false; reason: string }
  | { ok: 'blank' }

/** One row to a contact, or the reason it cannot be one, in words a spreadsheet user understands. */
export function csvRowToContact(columns: CsvColumns, cells: readonly string[]): CsvRowOutcome {
  if (cells.every((cell) => cell.trim() === '')) return { ok: 'blank' }
  const used = lastNonEmpty(cells) + 1
  if (used > columns.width) {
    return {
      ok: false,
      reason: `too many columns: ${used}, the header has ${columns.width} (a stray delimiter or unquoted comma?)`,
    }
  }
  const email = (cells[columns.emailIndex] ?? '').trim()
  if (email === '') return { ok: false, reason: 'missing email' }
  const attributes: Record<string, string> = {}
  for (const { index, key } of columns.attributes) {
    const value = (cells[index] ?? '').trim()
    if (value === '') continue
    if (value.length > MAX_ATTRIBUTE_VALUE_LENGTH) {
      return { ok: false, reason: `${key} is longer than ${MAX_ATTRIBUTE_VALUE_LENGTH} characters` }
    }
    attributes[key] = value
  }
  const name = columns.nameIndex === null ? null : (cells[columns.nameIndex] ?? null)
  const result = validateContact({ email, name, attributes })
  if (result.ok) return { ok: true, contact: result.contact }
  const issue = result.issues[0]
  if (issue?.path === 'email') return { ok: false, reason: `invalid email "${truncate(email)}"` }
  return { ok: false, reason: `${issue?.path || 'row'} ${issue?.message ?? 'is not valid'}` }
}

/**
 * Rows to contacts and a reason for every row left out. An email repeated in the rows keeps its
 * first row; each later one is reported, since upserting both would silently let the last one win.
 * `seen` carries the emails of earlier batches of the same file, so repeats across batches count too.
 */
export function prepareCsvRows(
  columns: CsvColumns,
  rows: readonly CsvRow[],
  seen: Map<string, number> = new Map(),
): PreparedCsvRows {
  const prepared: PreparedCsvRows = { contacts: [], rejected: [], blank: 0 }
  for (const row of rows) {
    const outcome = csvRowToContact(columns, row.cells)
    if (outcome.ok === 'blank') {
      prepared.blank += 1
      continue
    }
    const rawEmail = (row.cells[columns.emailIndex] ?? '').trim()
    if (!outcome.ok) {
      prepared.rejected.push({ line: row.line, email: rawEmail || null, reason: outcome.reason })
      continue
    }
    const first = seen.get(outcome.contact.email)
    if (first !== undefined) {
      prepared.rejected.push({
        line: row.line,
        email: rawEmail,
        reason: `duplicate email, first seen on line ${first} (that row is the one imported)`,
      })
      continue
    }
    seen.set(normaliseEmail(outcome.contact.email), row.line)
    prepared.contacts.push({ ...outcome.contact, line: row.line })
  }
  return prepared
}

function lastNonEmpty(cells: readonly string[]): number {
  for (let index = cells.length - 1; index >= 0; index -= 1)
    if ((cells[index] ?? '').trim() !== '') return index
  return -1
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
