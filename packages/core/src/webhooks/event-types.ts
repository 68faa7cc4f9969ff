import type { MessageEventType } from '../domain/statuses'

/**
 * What a tenant's webhook endpoint can subscribe to (`POST /api/v1/webhooks` `events`). The request
 * body's `type` is one of these, or `webhook.test` for the "send test event" button, which every
 * endpoint receives whatever it subscribed to.
 */
export const WEBHOOK_EVENT_TYPES = [
  'email.sent',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.opened',
  'email.clicked',
  'contact.unsubscribed',
  'domain.verified',
  'domain.failed',
  /** The reputation guardrail moved the tenant (warn, slow, pause), or lifted it (ok), or an admin resumed it. */
  'tenant.reputation',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test'
/** Every `type` a delivery can carry: the subscribable ones and the test event. */
export const WEBHOOK_DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE] as const
export type WebhookDeliveryEventType = (typeof WEBHOOK_DELIVERY_EVENT_TYPES)[number]

/**
 * A delivery is `pending` until an attempt is answered 2xx (`delivered`) or its retry schedule runs
 * out (`failed`); a replay makes a delivered or failed one `pending` again, with the same webhook-id.
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number]

/**
 * The message events a webhook reports, and the webhook type each becomes. The others (`accepted`,
 * `queued`, `deferred`, `retrying`, `suppressed`) are the platform's inner steps: visible in the
 * message's timeline, not pushed.
 */
export const WEBHOOK_TYPE_OF_MESSAGE_EVENT = {
  sent: 'email.sent',
  bounced: 'email.bounced',
  complained: 'email.complained',
  failed: 'email.failed',
  opened: 'email.opened',
  clicked: 'email.clicked',
  unsubscribed: 'contact.unsubscribed',
} as const satisfies Partial<Record<MessageEventType, WebhookEventType>>

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value)
}

/**
 * The PostgreSQL NOTIFY channel that wakes the webhook relay: sent in the transaction that makes a
 * delivery due (a new event, a test event, a replay), so the relay does not wait for its next poll.
 */
export const WEBHOOK_CHANNEL = 'fairlane_webhooks'
