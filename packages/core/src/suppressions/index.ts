export {
  isSuppressionScope,
  MARKETING_LANES,
  SUPPRESSION_SCOPES,
  type SuppressionScope,
  scopeForReason,
  suppressionStops,
  widerScope,
} from '../domain/suppression-scopes'
export {
  addSuppressions,
  addSuppressionsRequestSchema,
  MAX_SUPPRESSIONS_PER_REQUEST,
} from './add-suppressions'
export {
  importSuppressions,
  importSuppressionsQuerySchema,
  MAX_SUPPRESSION_CSV_BYTES,
  MAX_SUPPRESSION_IMPORT_ROWS,
  type SuppressionImportReport,
} from './import-suppressions'
export {
  DEFAULT_SUPPRESSIONS_PAGE,
  exportSuppressions,
  listSuppressions,
  MAX_SUPPRESSIONS_PAGE,
  SUPPRESSIONS_EXPORT_PAGE,
  type SuppressionPage,
  suppressionsFilterSchema,
  suppressionsQuerySchema,
} from './list-suppressions'
export type {
  NewSuppression,
  ResubscribeResult,
  ResubscribeStore,
  SuppressionEntry,
  SuppressionQuery,
  SuppressionStore,
  TenantActor,
} from './ports'
export { removeSuppression } from './remove-suppression'
export { MAX_RESUBSCRIBE_NOTE_LENGTH, resubscribeContact } from './resubscribe-contact'
export {
  type PreparedSuppressionRows,
  prepareSuppressionRows,
  type RejectedSuppressionRow,
  type SuppressionCsvRecord,
} from './suppression-csv'
export {
  MAX_SUPPRESSION_DETAIL_LENGTH,
  suppressionDetailProblem,
  suppressionDetailSchema,
} from './suppression-detail'
