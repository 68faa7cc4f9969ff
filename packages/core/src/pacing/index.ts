export type * from './ports'
export { type ReleaseBulkBatchDeps, type ReleaseOutcome, releaseBulkBatch } from './release-bulk-batch'
