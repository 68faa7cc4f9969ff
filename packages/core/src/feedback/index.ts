export {
  type ApplyFeedbackDeps,
  type ApplyFeedbackInput,
  applyFeedback,
  type FeedbackOutcome,
  INBOUND_KINDS,
  type InboundKind,
} from './apply-feedback'
export { countSoftBounce, type SoftBounceCount, type SoftBounceRecord } from './count-soft-bounce'
export { autoReplyReason } from './detect-auto-reply'
export {
  type BounceRecipient,
  type Feedback,
  type FeedbackMail,
  type FeedbackPart,
  headerValue,
  type OriginalHeaders,
  REPORT_PART_TYPES,
} from './feedback-mail'
export type {
  FeedbackEventType,
  FeedbackMessage,
  FeedbackStore,
  FeedbackTransaction,
  MessageRef,
} from './ports'
export { readDeliveryStatus } from './read-delivery-status'
export { readFeedback } from './read-feedback'
export { readFeedbackReport } from './read-feedback-report'
export { readTextBounce } from './read-text-bounce'
export { MAX_DIAGNOSTIC_CHARS, sanitiseOptional, sanitiseText } from './sanitise-text'
export { settleFeedbackStatuses } from './settle-feedback-statuses'
export { type BounceKind, classifyBounce, type DsnAction, findStatusCode } from './status-code'
