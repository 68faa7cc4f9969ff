export { PACER_CHANNEL } from './channel'
export type * from './ports'
export { inProviderBatches, type ReleasedForProvider } from './receiver-batches'
export type * from './receiver-ports'
export {
  type ActiveReleaseOutcome,
  type ActiveSetSync,
  createActiveSetSync,
  type ReleaseActiveBulkDeps,
  releaseActiveBulk,
} from './release-active-bulk'
export {
  createReceiverStage,
  RECEIVER_STAGE_DEFAULTS,
  type ReceiverStage,
  type ReceiverStageOptions,
  type ReleaseByReceiverDeps,
  type ReleaseByReceiverOutcome,
  releaseByReceiver,
} from './release-by-receiver'
