import { emailSchema } from '../contacts/contact-rules'
import { EMAIL_HEADERS } from '../contacts/csv-header'
import type { SuppressionScope } from '../domain/suppression-scopes'
import { validationFailed } from '../errors/app-error'
import type { NewSuppression } from './ports'
import { suppressionDetailProblem } from './suppression-detail'

/**
 * One record of a CSV file as the web app's reader (papaparse) gives it: its cells, or why it could
 * not be read (a quote never closed). `line` is where the record starts in the file, from 1.
 */
export type SuppressionCsvRecord =
  | { line: number; cells: readonly string[] }
  | { line: number; problem: string }

export interface RejectedSuppressionRow {
  line: number
  /** The address cell as written, when there was one, so the report row is recognisable. */
  email: string | null
  reason: string
}

export interface PreparedSuppressionRows {
  entries: (NewSuppression & { line: number })[]
  rejected: RejectedSuppressionRow[]
  /** Data rows (not blank), the header excluded. */
  rows: number
  blank: number
  /** Rows naming an address an earlier row of the file named: counted once, not refused. */
  duplicates: number
  /** Whether line 1 was a header row (else every line is one address). */
  header: boolean
  /** Columns of the header that are not read, said so nothing disappears unexplained. */
  ignoredColumns: string[]
}

interface Columns {
  emailIndex: number
  detailIndex: number | null
  /** Cells a row may use: more non-empty ones than this is a broken row. */
  width: number
  header: boolean
  ignored: string[]
}

const DETAIL_HEADERS = new Set(['detail', 'details', 'note'])

/**
 * The rows of a suppression CSV, checked one by one; every line of the file ends up imported, refused
 * with its line and reason, blank, or a repeat. Two shapes are read:
 * - a header row with an email column (`email`, `e-mail`, `email address`, any case) and optionally a
 *   `detail` (or `note`) column; other columns are ignored and named in `ignoredColumns` — so the
 *   export of this list imports again;
 * - no header, one address per line (a first line that is itself an address means this shape).
 * A cell the export protected from spreadsheet formulas (`'=…`) is read without the apostrophe.
 * A header that is neither is a 400 naming `header`, before any row is read.
 */
export function prepareSuppressionRows(
  records: readonly SuppressionCsvRecord[],
  scope: SuppressionScope,
): PreparedSuppressionRows {
  const prepared: PreparedSuppressionRows = {
    entries: [],
    rejected: [],
    rows: 0,
    blank: 0,
    duplicates: 0,
    header: false,
    ignoredColumns: [],
  }
  let columns: Columns | null = null
  const seen = new Set<string>()
  for (const record of records) {
    if ('problem' in record) {
      prepared.rows += 1
      prepared.rejected.push({ line: record.line, email: null, reason: record.problem })
      continue
    }
    if (record.cells.every((cell) => cell.trim() === '')) {
      prepared.blank += 1
      continue
    }
    if (columns === null) {
      columns = readColumns(record.cells)
      prepared.header = columns.header
      prepared.ignoredColumns = columns.ignored
      if (columns.header) continue
    }
    prepared.rows += 1
    const outcome = readRow(columns, record.cells)
    if (!outcome.ok) {
      prepared.rejected.push({ line: record.line, email: outcome.email, reason: outcome.reason })
      continue
    }
    if (seen.has(outcome.email)) {
      prepared.duplicates += 1
      continue
    }
    seen.add(outcome.email)
    prepared.entries.push({
      line: record.line,
      email: outcome.email,
      reason: 'manual',
      scope,
      detail: outcome.detail,
    })
  }
  return prepared
}

function readColumns(first: readonly string[]): Columns {
  const cells = first.map((cell, index) =>
    unprotect((index === 0 ? cell.replace(/^\uFEFF/, '') : cell).trim()),
  )
  const emails = cells.flatMap((cell, index) => (EMAIL_HEADERS.has(cell.toLowerCase()) ? [index] : []))
  if (emails.length > 1) {
    throw validationFailed([
      { path: 'header', message: `The header has ${emails.length} email columns; keep exactly one.` },
    ])
  }
  const emailIndex = emails[0]
  if (emailIndex === undefined) {
    const used = cells.filter((cell) => cell !== '')
    if (used.length === 1 && cells[0] !== '' && emailSchema.safeParse(cells[0]).success) {
      return { emailIndex: 0, detailIndex: null, width: 1, header: false, ignored: [] }
    }
    const shown = used.slice(0, 5).map((cell) => JSON.stringify(cell.slice(0, 80)))
    throw validationFailed([
      {
        path: 'header',
        message: `Could not find an email column: the first line needs a column named email, or the file one address per line with no header (line 1 was read as ${shown.join(', ')}${used.length > 5 ? ', …' : ''}).`,
      },
    ])
  }
  const details = cells.flatMap((cell, index) => (DETAIL_HEADERS.has(cell.toLowerCase()) ? [index] : []))
  if (details.length > 1) {
    throw validationFailed([
      { path: 'header', message: 'The header has two detail columns; keep at most one.' },
    ])
  }
  const detailIndex = details[0] ?? null
  const ignored = cells.flatMap((cell, index) =>
    index === emailIndex || index === detailIndex ? [] : [cell === '' ? `column ${index + 1}` : cell],
  )
  return {
    emailIndex,
    detailIndex,
    width: cells.length,
    header: true,
    ignored: ignored.length > 0 ? [`Not read (only email and detail are): ${ignored.join(', ')}`] : [],
  }
}

type RowOutcome =
  | { ok: true; email: string; detail: string | null }
  | { ok: false; email: string | null; reason: string }

function readRow(columns: Columns, cells: readonly string[]): RowOutcome {
  const written = unprotect((cells[columns.emailIndex] ?? '').trim())
  const email = written === '' ? null : written
  const used = lastNonEmpty(cells) + 1
  if (used > columns.width) {
    const reason = columns.header
      ? `too many columns: ${used}, the header has ${columns.width} (a stray delimiter or unquoted comma?)`
      : 'more than one column: a file without a header row has one address per line (add a header row with an email column to import more)'
    return { ok: false, email, reason }
  }
  if (email === null) return { ok: false, email, reason: 'missing email' }
  const parsed = emailSchema.safeParse(email)
  if (!parsed.success) return { ok: false, email, reason: `invalid email "${truncate(email)}"` }
  const detail = columns.detailIndex === null ? '' : unprotect((cells[columns.detailIndex] ?? '').trim())
  const problem = suppressionDetailProblem(detail)
  if (problem !== null) return { ok: false, email, reason: `detail ${problem}` }
  return { ok: true, email: parsed.data, detail: detail === '' ? null : detail }
}

/** Spreadsheet formula protection (`'=cmd`), as the export writes it, taken off again. */
function unprotect(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell
}

function lastNonEmpty(cells: readonly string[]): number {
  for (let index = cells.length - 1; index >= 0; index -= 1)
    if ((cells[index] ?? '').trim() !== '') return index
  return -1
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
