export {
  ATTRIBUTE_KEY,
  type AttributeValue,
  type ContactFields,
  contactSchema,
  MAX_ATTRIBUTES,
  MAX_NAME_LENGTH,
  normaliseEmail,
} from './contact-rules'
export { attributeKeyOf, type CsvColumns, type CsvHeaderResult, readCsvHeader } from './csv-header'
export {
  CSV_BATCH_ROWS,
  checkCsvFile,
  formatMegabytes,
  MAX_CSV_BATCH_BYTES,
  MAX_CSV_BYTES,
} from './csv-limits'
export {
  type CsvContact,
  type CsvRejectedRow,
  type CsvRow,
  type CsvRowOutcome,
  csvRowToContact,
  type PreparedCsvRows,
  prepareCsvRows,
} from './csv-rows'
export { type CsvBatchResult, importCsvRows } from './import-csv-rows'
export { MAX_LIST_NAME_LENGTH, splitEmailList, validateListName } from './list-name'
export {
  contactsRequestSchema,
  MAX_CONTACTS_PER_REQUEST,
  parseContactsRequest,
} from './parse-contacts-request'
export type { ContactUpserter, ListAdder, UpsertCounts } from './ports'
export { upsertContacts } from './upsert-contacts'
export { type ContactValidation, validateContact } from './validate-contact'
