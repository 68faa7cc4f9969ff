export type * from './ports'
export type * from './receiver-ports'
export { type ReleaseBulkBatchDeps, type ReleaseOutcome, releaseBulkBatch } from './release-bulk-batch'
export {
  createReceiverStage,
  RECEIVER_STAGE_DEFAULTS,
  type ReceiverStage,
  type ReceiverStageOptions,
  type ReleaseByReceiverDeps,
  type ReleaseByReceiverOutcome,
  releaseByReceiver,
} from './release-by-receiver'
