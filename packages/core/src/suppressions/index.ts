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
  DEFAULT_SUPPRESSIONS_PAGE,
  listSuppressions,
  MAX_SUPPRESSIONS_PAGE,
  type SuppressionPage,
  suppressionsQuerySchema,
} from './list-suppressions'
export type {
  ResubscribeResult,
  ResubscribeStore,
  SuppressionEntry,
  SuppressionQuery,
  SuppressionStore,
  TenantActor,
} from './ports'
export { removeSuppression } from './remove-suppression'
export { MAX_RESUBSCRIBE_NOTE_LENGTH, resubscribeContact } from './resubscribe-contact'
