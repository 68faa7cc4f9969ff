import { AppError, validationFailed } from '../errors/app-error'
import { type CsvColumns, readCsvHeader } from './csv-header'
import { CSV_BATCH_ROWS } from './csv-limits'
import { type CsvRejectedRow, type CsvRow, prepareCsvRows } from './csv-rows'
import type { ContactUpserter } from './ports'

export interface CsvBatchResult {
  columns: Pick<CsvColumns, 'emailIndex' | 'ignored'>
  created: number
  updated: number
  rejected: CsvRejectedRow[]
  blank: number
}

/**
 * One batch of a CSV import: the header is sent with every batch (it is small) so batches stay
 * independent and the server keeps no import state. Rows are validated, good ones upserted, and every
 * other row comes back with its line and reason. A bad header refuses the batch as a whole.
 */
export async function importCsvRows(
  input: { tenantId: string; header: readonly string[]; rows: readonly CsvRow[] },
  deps: { store: ContactUpserter },
): Promise<CsvBatchResult> {
  if (input.rows.length > CSV_BATCH_ROWS * 2) {
    throw new AppError('payload_too_large', `Send at most ${CSV_BATCH_ROWS * 2} rows per batch`)
  }
  const header = readCsvHeader(input.header)
  if (!header.ok) throw validationFailed([{ path: 'header', message: header.message }])
  const prepared = prepareCsvRows(header.columns, input.rows)
  const counts =
    prepared.contacts.length === 0
      ? { created: 0, updated: 0 }
      : await deps.store.upsertContacts({
          tenantId: input.tenantId,
          contacts: prepared.contacts.map(({ email, name, attributes }) => ({ email, name, attributes })),
        })
  return {
    columns: { emailIndex: header.columns.emailIndex, ignored: header.columns.ignored },
    ...counts,
    rejected: prepared.rejected,
    blank: prepared.blank,
  }
}
