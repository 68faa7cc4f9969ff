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
export { createWebhookEndpoint, MAX_WEBHOOK_ENDPOINTS_PER_TENANT } from './create-webhook-endpoint'
export { deleteWebhookEndpoint } from './delete-webhook-endpoint'
export { type WebhookDeliveryDetail, type WebhookDeliveryView, webhookDeliveryView } from './delivery-view'
export { endpointDisabledNotice, WEBHOOK_DISABLE_AFTER_MS } from './endpoint-disabled-notice'
export {
  type NewWebhookEndpoint,
  newWebhookEndpointSchema,
  parseNewWebhookEndpoint,
  parseWebhookEndpointPatch,
  WEBHOOK_DESCRIPTION_MAX,
  type WebhookEndpointPatch,
  webhookEndpointPatchSchema,
} from './endpoint-input'
export {
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
  webhookEndpointView,
} from './endpoint-view'
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
export { deliveryNotFound, getWebhookDelivery } from './get-webhook-delivery'
export { getWebhookEndpoint } from './get-webhook-endpoint'
export {
  DEFAULT_DELIVERIES_PAGE,
  listWebhookDeliveries,
  MAX_DELIVERIES_PAGE,
  type WebhookDeliveryPage,
  webhookDeliveriesQuerySchema,
} from './list-webhook-deliveries'
export { listWebhookEndpoints } from './list-webhook-endpoints'
export { DEFAULT_PARK_SETTINGS, PARKING_FAILURES, type ParkSettings, parkMs } from './park'
export { type ClaimPlan, planWebhookClaims, type ReadyEndpoint } from './plan-claims'
export type {
  HostAddressLookup,
  StoredWebhookAttempt,
  StoredWebhookDelivery,
  StoredWebhookEndpoint,
  WebhookDeliveryDeps,
  WebhookDeliveryStore,
  WebhookDisabledReason,
  WebhookEndpointChange,
  WebhookEndpointDeps,
  WebhookEndpointQuery,
  WebhookEndpointStore,
  WebhookSettings,
  WebhookUrlDeps,
} from './ports'
export {
  MAX_REPLAY_DELIVERIES,
  parseReplayDeliveries,
  type ReplayOutcome,
  replayDeliveriesSchema,
  replayWebhookDeliveries,
} from './replay-webhook-deliveries'
export {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  parseRetrySchedule,
  RETRY_JITTER,
  retryDelayMs,
} from './retry-schedule'
export { rotateWebhookSecret } from './rotate-webhook-secret'
export { sendTestEvent } from './send-test-event'
export { signWebhook, type WebhookHeaders } from './sign'
export { endpointChange, updateWebhookEndpoint } from './update-webhook-endpoint'
export { generateWebhookSecret, WEBHOOK_SECRET_GRACE_MS, WEBHOOK_SECRET_PREFIX } from './webhook-secret'
export { checkWebhookUrl } from './webhook-url'
