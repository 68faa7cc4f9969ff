import { AppError, validationFailed } from '../errors/app-error'
import { type CsvColumns, readCsvHeader } from './csv-header'
import { CSV_BATCH_ROWS } from './csv-limits'
import { type CsvRejectedRow, type CsvRow, prepareCsvRows } from './csv-rows'
import type { ContactUpserter, ListAdder } from './ports'

export interface CsvBatchResult {
  columns: Pick<CsvColumns, 'emailIndex' | 'ignored'>
  created: number
  updated: number
  rejected: CsvRejectedRow[]
  blank: number
  /** With `listId`: how many of this batch's contacts joined the list (ones already on it are not counted). */
  addedToList?: number
}

/**
 * One batch of a CSV import: the header is sent with every batch (it is small) so batches stay
 * independent and the server keeps no import state. Rows are validated, good ones upserted, and every
 * other row comes back with its line and reason. A bad header refuses the batch as a whole. With
 * `listId`, the batch's contacts also join that list (the list is checked first: a list that is not
 * the tenant's refuses the batch before anything is written).
 */
export async function importCsvRows(
  input: { tenantId: string; header: readonly string[]; rows: readonly CsvRow[]; listId?: string },
  deps: { store: ContactUpserter; lists?: ListAdder },
): Promise<CsvBatchResult> {
  if (input.rows.length > CSV_BATCH_ROWS * 2) {
    throw new AppError('payload_too_large', `Send at most ${CSV_BATCH_ROWS * 2} rows per batch`)
  }
  const header = readCsvHeader(input.header)
  if (!header.ok) throw validationFailed([{ path: 'header', message: header.message }])
  const lists = deps.lists
  const listId = input.listId
  if (listId !== undefined) {
    if (!lists) throw new Error('importCsvRows: a listId needs deps.lists')
    // The check doubles as the first add: nothing is added, but a foreign or deleted list is refused.
    if ((await lists.addToList({ tenantId: input.tenantId, listId, emails: [] })) === null) {
      throw validationFailed([{ path: 'listId', message: 'no such list: it may have been deleted' }])
    }
  }
  const prepared = prepareCsvRows(header.columns, input.rows)
  const counts =
    prepared.contacts.length === 0
      ? { created: 0, updated: 0 }
      : await deps.store.upsertContacts({
          tenantId: input.tenantId,
          contacts: prepared.contacts.map(({ email, name, attributes }) => ({ email, name, attributes })),
        })
  let addedToList: number | undefined
  if (listId !== undefined && lists) {
    const emails = prepared.contacts.map((contact) => contact.email)
    const added =
      emails.length === 0 ? { added: 0 } : await lists.addToList({ tenantId: input.tenantId, listId, emails })
    if (added === null)
      throw validationFailed([{ path: 'listId', message: 'no such list: it was deleted during the import' }])
    addedToList = added.added
  }
  return {
    columns: { emailIndex: header.columns.emailIndex, ignored: header.columns.ignored },
    ...counts,
    rejected: prepared.rejected,
    blank: prepared.blank,
    ...(addedToList === undefined ? {} : { addedToList }),
  }
}
