export { forbiddenAddressReason, WEBHOOK_URL_MAX_LENGTH, webhookUrlProblem } from './address-rules'
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
