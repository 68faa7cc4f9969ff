import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import {
  WEBHOOK_DELIVERY_EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryEventType,
  type WebhookDeliveryStatus,
  type WebhookEventType,
} from './literals'
import { tenantId } from './tenant-column'

/**
 * A tenant's webhook endpoint: where its events are POSTed, signed with `secret` (Standard Webhooks,
 * `whsec_` + base64 of 32 random bytes). A rotation keeps the old secret until
 * `previous_secret_expires_at`, and requests carry both signatures meanwhile.
 *
 * `parked_until` is the endpoint's circuit breaker: while it is in the future the endpoint's
 * deliveries wait in PostgreSQL and only one probe goes out when it passes, so an endpoint that hangs
 * never holds the webhook lane's workers (`park_level` grows the pause). `failing_since` is the first
 * failed attempt since the last success; failing for 3 days disables the endpoint (`disabled_reason`).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    url: text('url').notNull(),
    description: text('description'),
    events: text('events').array().$type<WebhookEventType[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    /** `manual` (the tenant switched it off) or `failing` (every delivery failed for 3 days). */
    disabledReason: text('disabled_reason'),
    disabledAt: timestamptz('disabled_at'),
    failingSince: timestamptz('failing_since'),
    lastSuccessAt: timestamptz('last_success_at'),
    parkedUntil: timestamptz('parked_until'),
    parkLevel: integer('park_level').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_endpoints_tenant_idx').on(t.tenantId, t.createdAt),
    // The outbox trigger on message_events looks a tenant's enabled endpoints up for every statement
    // that writes a reported event: this index holds only the enabled ones, so it is tiny.
    index('webhook_endpoints_enabled_tenant_idx').on(t.tenantId).where(sql`${t.enabled}`),
    check('webhook_endpoints_url_length_check', sql`length(${t.url}) <= 2048`),
    check('webhook_endpoints_events_check', sql`cardinality(${t.events}) > 0`),
  ],
)

/**
 * One event for one endpoint: created in the transaction that wrote the event (the outbox of the
 * webhook lane), so an event an endpoint subscribed to is never lost. `webhook_id` is the Standard
 * Webhooks `webhook-id`, the same on every attempt and every replay, so receivers can deduplicate.
 * `payload` is the request body's object as it was when the event happened.
 *
 * Retries are scheduled here (`next_attempt_at`), not as delayed jobs in Redis; `locked_until` is the
 * lease of an attempt in flight (a job in the webhook lane), so a crashed worker's attempt is taken
 * again after it passes and never runs twice at once.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id').notNull().default(sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`),
    eventType: text('event_type').$type<WebhookDeliveryEventType>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** The message the event is about, when it is about one. */
    messageId: uuid('message_id'),
    /** The `message_events` row it came from: one delivery per event per endpoint. */
    messageEventId: bigint('message_event_id', { mode: 'number' }),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    lockedUntil: timestamptz('locked_until'),
    lastAttemptAt: timestamptz('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /** The first 4 KB of the last response's body, for the delivery log. */
    lastResponse: text('last_response'),
    deliveredAt: timestamptz('delivered_at'),
    failedAt: timestamptz('failed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    check('webhook_deliveries_status_check', oneOf(t.status, WEBHOOK_DELIVERY_STATUSES)),
    check('webhook_deliveries_event_type_check', oneOf(t.eventType, WEBHOOK_DELIVERY_EVENT_TYPES)),
    unique('webhook_deliveries_webhook_id_unique').on(t.webhookId),
    unique('webhook_deliveries_endpoint_event_unique').on(t.endpointId, t.messageEventId),
    // The claim: each endpoint's due deliveries, oldest first, without reading delivered history.
    index('webhook_deliveries_due_idx').on(t.endpointId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // An endpoint's attempts in flight (its concurrency cap): only leased rows, however long its backlog.
    index('webhook_deliveries_leased_idx')
      .on(t.endpointId)
      .where(sql`${t.status} = 'pending' and ${t.lockedUntil} is not null`),
    // The delivery log: an endpoint's deliveries, newest first (the tenant cascade uses the FK's).
    index('webhook_deliveries_log_idx').on(t.tenantId, t.endpointId, t.createdAt),
    // Message retention deletes a message's deliveries with it (and keeps a message whose delivery is pending).
    index('webhook_deliveries_message_idx').on(t.messageId).where(sql`${t.messageId} is not null`),
    // Retention (EVENT_RETENTION_DAYS): rows arrive in time order, so a BRIN is nearly free.
    index('webhook_deliveries_created_brin').using('brin', t.createdAt),
  ],
)

/** Each attempt of a delivery, for the delivery log: when, how long, what came back. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamptz('attempted_at').notNull().defaultNow(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    /** Why it failed, in words: a timeout, a TLS error, a redirect not followed, a non-2xx status. */
    error: text('error'),
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [
    primaryKey({ name: 'webhook_attempts_pk', columns: [t.deliveryId, t.id] }),
    index('webhook_attempts_tenant_idx').on(t.tenantId),
  ],
)

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect
export type NewWebhookEndpoint = typeof webhookEndpoints.$inferInsert
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect
export type NewWebhookDelivery = typeof webhookDeliveries.$inferInsert
export type WebhookAttempt = typeof webhookAttempts.$inferSelect
