import { z } from 'zod'
import { SUPPRESSION_SCOPES, type SuppressionScope } from '../domain/suppression-scopes'
import { AppError, validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SuppressionStore } from './ports'
import {
  type PreparedSuppressionRows,
  prepareSuppressionRows,
  type RejectedSuppressionRow,
  type SuppressionCsvRecord,
} from './suppression-csv'

/** The largest CSV body an import takes (about 150,000 addresses); a bigger list goes in several files. */
export const MAX_SUPPRESSION_CSV_BYTES = 5 * 1024 * 1024
/** Rows an import takes, checked before anything is written, so a refused file changes nothing. */
export const MAX_SUPPRESSION_IMPORT_ROWS = 100_000
/** Addresses per insert: one statement each, so a long file never holds one long transaction. */
const WRITE_BATCH = 1000

/** The query of `POST /api/v1/suppressions/import` (the API document renders it). */
export const importSuppressionsQuerySchema = z.strictObject({
  scope: z
    .enum(SUPPRESSION_SCOPES, `must be one of ${SUPPRESSION_SCOPES.join(', ')}`)
    .default('all' satisfies SuppressionScope)
    .meta({ description: '`all` (default): every lane; `marketing`: campaign mail only' }),
})

export interface SuppressionImportReport {
  /** Data rows read (the header and blank lines not counted). */
  rows: number
  /** Addresses that were not on the list. */
  added: number
  /** Campaign-only entries (unsubscribes) widened to every lane by this import. */
  widened: number
  /** Addresses already on the list, left as they were. */
  alreadySuppressed: number
  /** Rows naming an address an earlier row named: counted once. */
  duplicates: number
  blank: number
  /** Every row not imported, with its line (the first line of the file is 1) and why. */
  rejected: RejectedSuppressionRow[]
  header: boolean
  ignoredColumns: string[]
}

/**
 * `POST /api/v1/suppressions/import` (and the Suppressions page's import): a CSV file's addresses
 * become manual entries. Every row is checked first (`prepareSuppressionRows`); a bad header or a file
 * over `MAX_SUPPRESSION_IMPORT_ROWS` rows is refused before anything is written. The good rows are
 * then added in batches, each its own statement: a failure part-way leaves the earlier batches added,
 * and importing the file again finishes it (an address already listed is left as it is).
 */
export async function importSuppressions(
  input: { tenantId: string; records: readonly SuppressionCsvRecord[]; query: Record<string, string> },
  deps: { store: SuppressionStore },
): Promise<SuppressionImportReport> {
  const given = Object.fromEntries(Object.entries(input.query).filter(([, value]) => value !== ''))
  const query = importSuppressionsQuerySchema.safeParse(given)
  if (!query.success) throw validationFailed(fieldIssues(query.error))
  const prepared: PreparedSuppressionRows = prepareSuppressionRows(input.records, query.data.scope)
  if (prepared.rows > MAX_SUPPRESSION_IMPORT_ROWS) {
    throw new AppError(
      'payload_too_large',
      `The file has ${prepared.rows.toLocaleString('en')} rows; an import takes at most ${MAX_SUPPRESSION_IMPORT_ROWS.toLocaleString('en')}. Split it and import the parts one after another.`,
    )
  }
  if (prepared.rows === 0 && prepared.rejected.length === 0) {
    throw validationFailed([{ path: 'body', message: 'The file has no addresses' }])
  }
  let added = 0
  let widened = 0
  for (let start = 0; start < prepared.entries.length; start += WRITE_BATCH) {
    const batch = prepared.entries.slice(start, start + WRITE_BATCH)
    const written = await deps.store.addMany({
      tenantId: input.tenantId,
      entries: batch.map(({ line: _line, ...entry }) => entry),
    })
    added += written.added
    widened += written.widened
  }
  return {
    rows: prepared.rows,
    added,
    widened,
    alreadySuppressed: prepared.entries.length - added - widened,
    duplicates: prepared.duplicates,
    blank: prepared.blank,
    rejected: prepared.rejected,
    header: prepared.header,
    ignoredColumns: prepared.ignoredColumns,
  }
}
