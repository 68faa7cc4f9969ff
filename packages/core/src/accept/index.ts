export {
  type AcceptBatchInput,
  type AcceptBatchResult,
  acceptBatch,
  type BatchItemResult,
  MAX_BATCH_MESSAGES,
} from './accept-batch'
export { type AcceptMessageInput, type AcceptMessageResult, acceptMessage } from './accept-message'
export {
  type AcceptBucketSize,
  type AcceptBuckets,
  type AcceptPlan,
  acceptBucketName,
  acceptBucketSize,
  acceptBucketStep,
  checkPlanBeforeBody,
  type LanePlan,
  type PlanAdmissionDeps,
  type PlanDecision,
  type TransactionalLane,
  takePlanAllowance,
  tightestLane,
} from './admit-by-plan'
export { canonicalJson, requestHash } from './canonical-json'
export { HEADER_UNSAFE_MESSAGE, isHeaderSafe } from './header-safe'
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_TTL_MS, parseIdempotencyKey } from './idempotency-key'
export {
  customMessageRequestSchema,
  type MessageContent,
  type MessageRequest,
  parseMessageRequest,
  templateMessageRequestSchema,
} from './message-request'
export type {
  AcceptDeps,
  AcceptedMessage,
  AcceptStore,
  AcceptTransaction,
  AcceptWriter,
  Clock,
  LimitDecision,
  MessageRenderer,
  MessageSource,
  NewQueuedMessage,
  RecipientLimiter,
  RenderedMessage,
  RenderOutcome,
} from './ports'
export { MAX_SEND_AT_AHEAD_MS, MAX_SEND_AT_PAST_MS, scheduledUntil, sendAtField } from './send-at'
export {
  BUILT_IN_TEMPLATES,
  type BuiltInTemplateName,
  isBuiltInTemplate,
  isRecipientLimited,
  laneForTemplate,
} from './template-lanes'
