import type { WebhookDeliveryEventType, WebhookDeliveryStatus } from './event-types'
import type { StoredWebhookAttempt, StoredWebhookDelivery } from './ports'

/** One row of an endpoint's delivery log. */
export interface WebhookDeliveryView {
  id: string
  endpointId: string
  eventType: WebhookDeliveryEventType
  /** Standard Webhooks' `webhook-id`: the same on every attempt and replay. */
  webhookId: string
  status: WebhookDeliveryStatus
  attempts: number
  lastStatusCode: number | null
  lastError: string | null
  /** The first 4 KB of the last response's body. */
  lastResponse: string | null
  lastAttemptAt: Date | null
  /** When a pending delivery is tried next. */
  nextAttemptAt: Date | null
  deliveredAt: Date | null
  failedAt: Date | null
  createdAt: Date
}

/** A delivery with what it sends and every attempt, for the log's detail view. */
export interface WebhookDeliveryDetail extends WebhookDeliveryView {
  payload: Record<string, unknown>
  attemptLog: StoredWebhookAttempt[]
}

export function webhookDeliveryView(delivery: StoredWebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventType: delivery.eventType,
    webhookId: delivery.webhookId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    lastResponse: delivery.lastResponse,
    lastAttemptAt: delivery.lastAttemptAt,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    deliveredAt: delivery.deliveredAt,
    failedAt: delivery.failedAt,
    createdAt: delivery.createdAt,
  }
}
