export {
  type BucketPlan,
  decide,
  deferralDelayMs,
  emissionIntervalMs,
  enforcedPlan,
  type GcraDecision,
  HANDOFF_RESERVE_MS,
  reserveDeferralSlot,
} from './bucket/gcra'
export {
  createTokenBuckets,
  type TakeResult,
  type TakeUpToResult,
  type TokenBuckets,
} from './bucket/token-buckets'
export {
  createLatencyWindow,
  DEFAULT_GOVERNOR_SETTINGS,
  decodeGovernorHistory,
  encodeGovernorPeriod,
  GOVERNOR_HISTORY_LENGTH,
  type GovernorPeriod,
  type GovernorSettings,
  governed,
  governorKeys,
  nextGovernorFactor,
  quantileOf,
  readGovernorFactor,
} from './governor/bulk-governor'
export {
  type AdmitInput,
  type AdmitResult,
  type AdmitStop,
  createLaneAdmission,
  type LaneAdmission,
  laneParkKey,
} from './lane/lane-admission'
export {
  type BucketSends,
  type CompetedShare,
  type CompetedShares,
  competedShares,
  type TenantPlanShape,
} from './metrics/competed-shares'
export { jainIndex, maxInWindow, maxMinFairShares, rateViolations } from './metrics/fairness-metrics'
export {
  type ActiveFlows,
  type ActiveFlowsPlan,
  type ActiveTenantPlan,
  createActiveFlows,
  FORGET_TENANT_AFTER_MS,
} from './pacer/active-flows'
export { allowanceCap, refilledAllowance } from './pacer/release-allowance'
export {
  createReceiverCounters,
  MAX_KNOWN_RECEIVERS,
  MAX_RECEIVER_WINDOW_MINUTES,
  RECEIVER_COUNT_KINDS,
  type ReceiverCounters,
  type ReceiverCountInput,
  type ReceiverCountKind,
  type ReceiverCounts,
} from './receivers/receiver-counters'
export {
  createReceiverDemand,
  type DemandEntry,
  type DemandKind,
  type DemandNote,
  type ReceiverDemand,
} from './receivers/receiver-demand'
export { hashTagOf, type RedisClient, readGroupedKeys } from './redis-reads'
