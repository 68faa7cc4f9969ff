export { forbiddenAddressReason, WEBHOOK_URL_MAX_LENGTH, webhookUrlProblem } from './address-rules'
export {
  type AttemptDeliveryDeps,
  type AttemptDeliveryOutcome,
  type AttemptStore,
  type AttemptTarget,
  attemptWebhookDelivery,
} from './attempt-delivery'
export {
  type AttemptDecision,
  type AttemptFailureKind,
  type AttemptResult,
  type AttemptRules,
  type DeliveryAfterAttempt,
  decideAfterAttempt,
  type EndpointAfterAttempt,
} from './attempt-outcome'
export { endpointDisabledNotice, WEBHOOK_DISABLE_AFTER_MS } from './endpoint-disabled-notice'
export {
  isWebhookEventType,
  WEBHOOK_CHANNEL,
  WEBHOOK_DELIVERY_EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT_TYPE,
  WEBHOOK_TYPE_OF_MESSAGE_EVENT,
  type WebhookDeliveryEventType,
  type WebhookDeliveryStatus,
  type WebhookEventType,
} from './event-types'
export { DEFAULT_PARK_SETTINGS, PARKING_FAILURES, type ParkSettings, parkMs } from './park'
export { type ClaimPlan, planWebhookClaims, type ReadyEndpoint } from './plan-claims'
export {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  parseRetrySchedule,
  RETRY_JITTER,
  retryDelayMs,
} from './retry-schedule'
export { signWebhook, type WebhookHeaders } from './sign'
