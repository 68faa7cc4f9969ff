export {
  type AcceptBatchInput,
  type AcceptBatchResult,
  acceptBatch,
  type BatchItemResult,
  MAX_BATCH_MESSAGES,
} from './accept-batch'
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
  acceptPlanFor,
  bucketCost,
  checkPlanBeforeBody,
  type LanePlan,
  type PlanAdmissionDeps,
  type PlanDecision,
  type TransactionalLane,
  takePlanAllowance,
  tightestLane,
} from './admit-by-plan'
export {
  admitByQuota,
  decideQuota,
  nextUtcDay,
  nextUtcMonth,
  type QuotaDecision,
  type QuotaUsage,
  quotaRefusal,
  utcDay,
  utcMonthStart,
} from './admit-by-quota'
export {
  type AttachmentRules,
  attachmentBytes,
  attachmentsField,
  checkAttachments,
  DEFAULT_ATTACHMENT_RULES,
  DEFAULT_BLOCKED_EXTENSIONS,
  decodeStrictBase64,
  extensionOf,
  MAX_ATTACHMENTS,
  MAX_FILENAME_LENGTH,
  type NewAttachment,
  sanitizeFilename,
} from './attachments'

export { canonicalJson, requestHash } from './canonical-json'
export { checkSubmittedSender, type SubmittedSender } from './check-submitted-sender'
export { HEADER_UNSAFE_MESSAGE, isHeaderSafe } from './header-safe'
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_TTL_MS, parseIdempotencyKey } from './idempotency-key'
export { COST_UNIT_BYTES, messageCost } from './message-cost'
export {
  customMessageRequestSchema,
  type MessageContent,
  type MessageRequest,
  parseMessageRequest,
  templateMessageRequestSchema,
  utf8Bytes,
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
export { createTenantPlanCache, TENANT_PLAN_TTL_MS, type TenantPlanCacheOptions } from './tenant-plan-cache'
export {
  DEFAULT_TENANT_PLAN,
  hasQuota,
  NO_QUOTA,
  type OwnLanePlan,
  ownLanePlan,
  type Quota,
  type TenantPlan,
  type TenantPlans,
  tenantAcceptPlan,
} from './tenant-plans'
