import { WEBHOOK_DELIVERY_EVENT_TYPES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '@fairlane/core'
import { z } from 'zod'

/**
 * What `/api/v1/webhooks` answers, as schemas (see `responses.ts`): the API document renders them and
 * the handlers' bodies are checked against their types at compile time.
 */

const id = z
  .uuid()
  .meta({ description: 'The id Fairlane gave it', example: '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70' })
const instant = z.iso.datetime().meta({ description: 'An ISO 8601 instant in UTC' })

export const webhookEndpointResponse = z
  .object({
    id,
    url: z.string().meta({ example: 'https://example.com/webhooks/fairlane' }),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({ description: 'The event types it receives' }),
    enabled: z.boolean(),
    description: z.string().nullable(),
    disabledReason: z.enum(['manual', 'failing']).nullable().meta({
      description:
        '`manual`: you switched it off; `failing`: every delivery failed for 3 days, so Fairlane switched it off (enable it again once the receiver works)',
    }),
    disabledAt: instant.nullable(),
    failingSince: instant
      .nullable()
      .meta({ description: 'The first failed attempt since the last success; null while healthy' }),
    lastSuccessAt: instant.nullable(),
    previousSecretExpiresAt: instant.nullable().meta({
      description: 'After a rotation: until then requests are signed with the old secret too',
    }),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'WebhookEndpoint' })
export type WebhookEndpointResponse = z.input<typeof webhookEndpointResponse>

export const webhookEndpointWithSecretResponse = webhookEndpointResponse
  .extend({
    secret: z.string().meta({
      description:
        'The signing secret (`whsec_` + base64 of 32 bytes), shown only in this answer: verify `webhook-signature` with it (Standard Webhooks)',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' })
export type WebhookEndpointWithSecretResponse = z.input<typeof webhookEndpointWithSecretResponse>

export const webhookEndpointsResponse = z.object({ items: z.array(webhookEndpointResponse) })

export const webhookDeliveryResponse = z
  .object({
    id,
    endpointId: id,
    eventType: z.enum(WEBHOOK_DELIVERY_EVENT_TYPES).meta({ description: 'The `type` of the request body' }),
    webhookId: z.string().meta({
      description: 'The `webhook-id` header: the same on every attempt and replay, for deduplication',
      example: 'msg_0193c3d15b7e7f2a9c1d2b3c4d5e6f70',
    }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description:
        '`pending` until a 2xx (`delivered`) or the retries run out after about a day (`failed`); a replay makes it `pending` again',
    }),
    attempts: z.int().min(0),
    lastStatusCode: z.int().optional().meta({ description: 'The HTTP status of the last answer' }),
    lastError: z
      .string()
      .optional()
      .meta({ description: 'Why the last attempt failed: a status, a timeout, a TLS error, a redirect' }),
    lastResponse: z.string().optional().meta({ description: 'The first 4 KB of the last answer’s body' }),
    lastAttemptAt: instant.optional(),
    nextAttemptAt: instant.optional().meta({ description: 'When a pending delivery is tried next' }),
    deliveredAt: instant.optional(),
    failedAt: instant.optional(),
    createdAt: instant,
  })
  .meta({ id: 'WebhookDelivery' })
export type WebhookDeliveryResponse = z.input<typeof webhookDeliveryResponse>

export const webhookDeliveriesPageResponse = z.object({
  items: z.array(webhookDeliveryResponse).meta({ description: 'Newest first' }),
  nextCursor: z
    .string()
    .optional()
    .meta({ description: 'Pass as `cursor` for the next page; absent on the last' }),
})

export const webhookAttemptResponse = z.object({
  attemptedAt: instant,
  durationMs: z.int().min(0),
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable().meta({ description: 'The first 4 KB of the answer’s body' }),
})

export const webhookDeliveryDetailResponse = webhookDeliveryResponse
  .extend({
    payload: z.record(z.string(), z.unknown()).meta({ description: 'The request body sent' }),
    attemptLog: z.array(webhookAttemptResponse).meta({ description: 'Every attempt, oldest first' }),
  })
  .meta({ id: 'WebhookDeliveryDetail' })
export type WebhookDeliveryDetailResponse = z.input<typeof webhookDeliveryDetailResponse>

export const webhookReplayResponse = z.object({
  items: z.array(webhookDeliveryResponse).meta({ description: 'The deliveries replayed, now pending' }),
  notFound: z
    .array(z.string())
    .meta({ description: 'Ids that are not deliveries of this endpoint (nothing was done with them)' }),
})
export type WebhookReplayResponse = z.input<typeof webhookReplayResponse>
