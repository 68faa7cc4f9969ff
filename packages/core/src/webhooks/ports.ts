import type { Clock } from '../accept/ports'
import type { AuditOf, AuditRecord } from '../audit/audit-record'
import type { WebhookDeliveryEventType, WebhookDeliveryStatus, WebhookEventType } from './event-types'

/** Why an endpoint is off: the tenant switched it off, or every delivery failed for 3 days (the engine). */
export type WebhookDisabledReason = 'manual' | 'failing'

/** An endpoint as the use cases see it; `secret` never leaves the use cases but on create and rotate. */
export interface StoredWebhookEndpoint {
  id: string
  tenantId: string
  url: string
  description: string | null
  events: WebhookEventType[]
  enabled: boolean
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: Date | null
  disabledReason: WebhookDisabledReason | null
  disabledAt: Date | null
  failingSince: Date | null
  lastSuccessAt: Date | null
  parkedUntil: Date | null
  createdAt: Date
  updatedAt: Date
}

/** What a locked update writes; fields left out stay as they are. */
export interface WebhookEndpointChange {
  url?: string
  description?: string | null
  events?: WebhookEventType[]
  enabled?: boolean
  secret?: string
  previousSecret?: string | null
  previousSecretExpiresAt?: Date | null
  disabledReason?: WebhookDisabledReason | null
  disabledAt?: Date | null
  failingSince?: Date | null
  parkedUntil?: Date | null
  parkLevel?: number
}

export interface WebhookEndpointQuery {
  tenantId: string
  endpointId: string
}

/** What the endpoint use cases need from PostgreSQL (`@fairlane/db/queries/webhook-endpoints`). */
export interface WebhookEndpointStore {
  /**
   * Inserts the endpoint unless the tenant already has `maxEndpoints` (null then, writing nothing),
   * counted under a per-tenant lock so two adds at once cannot both slip under the cap.
   */
  insertEndpoint(
    input: {
      tenantId: string
      url: string
      description: string | null
      events: WebhookEventType[]
      secret: string
      maxEndpoints: number
    },
    audit?: AuditOf<StoredWebhookEndpoint>,
  ): Promise<StoredWebhookEndpoint | null>
  findEndpoint(query: WebhookEndpointQuery): Promise<StoredWebhookEndpoint | null>
  /** Oldest first, so a tenant's list keeps its order as endpoints are added. */
  listEndpoints(query: { tenantId: string }): Promise<StoredWebhookEndpoint[]>
  /**
   * Locks the row, hands it to `change` and writes what that returns (nothing for null), in one
   * transaction; answers the row afterwards, or null when the tenant has no such endpoint. `change`
   * may throw (an `AppError`): nothing is written then. `audit` is written with the change (not when
   * `change` answers null).
   */
  updateEndpoint(
    query: WebhookEndpointQuery,
    change: (current: StoredWebhookEndpoint) => WebhookEndpointChange | null,
    audit?: AuditOf<StoredWebhookEndpoint>,
  ): Promise<StoredWebhookEndpoint | null>
  /** Deletes the endpoint with its deliveries and attempts; false when the tenant has no such endpoint. */
  deleteEndpoint(query: WebhookEndpointQuery, audit?: AuditRecord): Promise<boolean>
}

export interface StoredWebhookDelivery {
  id: string
  endpointId: string
  webhookId: string
  eventType: WebhookDeliveryEventType
  payload: Record<string, unknown>
  status: WebhookDeliveryStatus
  attempts: number
  nextAttemptAt: Date
  lastAttemptAt: Date | null
  lastStatusCode: number | null
  lastError: string | null
  lastResponse: string | null
  deliveredAt: Date | null
  failedAt: Date | null
  createdAt: Date
}

export interface StoredWebhookAttempt {
  id: number
  attemptedAt: Date
  durationMs: number
  statusCode: number | null
  error: string | null
  responseExcerpt: string | null
}

/** What the delivery use cases need from PostgreSQL (`@fairlane/db/queries/webhook-delivery-log`). */
export interface WebhookDeliveryStore {
  /**
   * Inserts a delivery of the endpoint due now and wakes the webhook relay (NOTIFY) in the same
   * transaction; null, writing nothing, when the tenant has no such endpoint.
   */
  insertDelivery(
    input: {
      tenantId: string
      endpointId: string
      eventType: WebhookDeliveryEventType
      payload: Record<string, unknown>
    },
    audit?: AuditOf<StoredWebhookDelivery>,
  ): Promise<StoredWebhookDelivery | null>
  /**
   * Makes the given deliveries of the endpoint due now again (pending, failed_at cleared, the same
   * webhook_id) and wakes the relay, in one transaction; answers those it changed (ids of another
   * endpoint or tenant are left out).
   */
  replayDeliveries(
    input: {
      tenantId: string
      endpointId: string
      deliveryIds: readonly string[]
    },
    audit?: AuditOf<StoredWebhookDelivery[]>,
  ): Promise<StoredWebhookDelivery[]>
  /** Newest first; `after` is the id of the last delivery of the previous page. */
  listDeliveries(input: {
    tenantId: string
    endpointId: string
    status?: WebhookDeliveryStatus
    after?: string
    limit: number
  }): Promise<StoredWebhookDelivery[]>
  findDelivery(input: {
    tenantId: string
    endpointId: string
    deliveryId: string
  }): Promise<StoredWebhookDelivery | null>
  /** The delivery's attempts, oldest first. */
  listAttempts(input: { tenantId: string; deliveryId: string }): Promise<StoredWebhookAttempt[]>
}

/** A host's addresses by DNS (A and AAAA), or the lookup's error code (ENOTFOUND, ETIMEOUT, …). */
export interface HostAddressLookup {
  resolve(host: string): Promise<{ addresses: string[] } | { error: string }>
}

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: plain http and private addresses allowed (development and tests). */
  allowPrivate: boolean
}

export interface WebhookEndpointDeps {
  store: WebhookEndpointStore
  clock: Clock
}

/** What a use case that takes a URL needs: the DNS lookup and the address rule's switch. */
export interface WebhookUrlDeps extends WebhookEndpointDeps {
  hosts: HostAddressLookup
  settings: WebhookSettings
}

export interface WebhookDeliveryDeps {
  endpoints: WebhookEndpointStore
  deliveries: WebhookDeliveryStore
  clock: Clock
}
