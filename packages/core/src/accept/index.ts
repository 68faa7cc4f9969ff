export { type AcceptMessageInput, type AcceptMessageResult, acceptMessage } from './accept-message'
export {
  type AcceptSubmissionInput,
  type AcceptSubmissionResult,
  acceptSubmission,
  isSubmissionRecipient,
  MAX_SUBMISSION_RECIPIENTS,
} from './accept-submission'
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
export { checkSubmittedSender, type SubmittedSender } from './check-submitted-sender'
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
  NewQueuedMessage,
  RecipientLimiter,
  RenderedMessage,
  RenderOutcome,
} from './ports'
export type {
  NewSubmission,
  NewSubmittedMessage,
  SubmissionDeps,
  SubmissionDomains,
  SubmissionStore,
} from './submission-ports'
export {
  normaliseLineEndings,
  readSubmittedMessage,
  SUBMISSION_LANES,
  type SubmittedMessage,
} from './submitted-message'
export {
  BUILT_IN_TEMPLATES,
  type BuiltInTemplateName,
  isBuiltInTemplate,
  isRecipientLimited,
  laneForTemplate,
} from './template-lanes'
