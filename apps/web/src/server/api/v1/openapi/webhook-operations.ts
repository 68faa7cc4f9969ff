import {
  MAX_REPLAY_DELIVERIES,
  MAX_WEBHOOK_ENDPOINTS_PER_TENANT,
  newWebhookEndpointSchema,
  replayDeliveriesSchema,
  WEBHOOK_EVENT_TYPES,
  webhookDeliveriesQuerySchema,
  webhookEndpointPatchSchema,
} from '@fairlane/core'
import { z } from 'zod'
import {
  webhookDeliveriesPageResponse,
  webhookDeliveryDetailResponse,
  webhookDeliveryResponse,
  webhookEndpointResponse,
  webhookEndpointsResponse,
  webhookEndpointWithSecretResponse,
  webhookReplayResponse,
} from '../webhook-responses'
import type { RouteKey } from './document'
import { idParam, json, locationHeader, type Operation, responses } from './operation-helpers'

/** `/api/v1/webhooks` in the API document: the endpoints, their secrets, test events and the delivery log. */

const request = {
  newEndpoint: newWebhookEndpointSchema.meta({ id: 'NewWebhookEndpointRequest' }),
  patch: webhookEndpointPatchSchema.meta({ id: 'WebhookEndpointPatchRequest' }),
  replay: replayDeliveriesSchema.meta({ id: 'ReplayWebhookDeliveriesRequest' }),
}

const deliveryParams = {
  path: z.object({
    id: idParam('endpoint').path.shape.id,
    deliveryId: z.string().meta({ description: 'The delivery’s id (a UUID) in the endpoint’s log' }),
  }),
}

const body = (schema: z.ZodType, examples: Record<string, { summary: string; value: unknown }>) => ({
  required: true,
  content: { 'application/json': { schema, examples } },
})

const REQUEST_FORMAT = [
  'Each event is a `POST` of JSON `{ type, createdAt, data }` with the Standard Webhooks headers `webhook-id`',
  '(the same on every attempt), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of',
  '"<id>.<timestamp>.<body>">`, key = the base64 after `whsec_`), so the verifiers of Svix or Resend work unchanged.',
  'A 2xx within 10 seconds is delivered; anything else is retried with backoff for about a day.',
].join(' ')

export function webhookOperations(): Record<RouteKey, Operation> {
  return {
    'GET /api/v1/webhooks': {
      operationId: 'listWebhooks',
      tags: ['Webhooks'],
      summary: 'List your webhook endpoints',
      responses: responses(
        { '200': json(webhookEndpointsResponse, 'Every endpoint, oldest first') },
        [401, 429],
      ),
    },
    'POST /api/v1/webhooks': {
      operationId: 'addWebhook',
      tags: ['Webhooks'],
      summary: 'Add a webhook endpoint',
      description: [
        `${REQUEST_FORMAT} The URL must be https, at most 2,048 characters, and its host must resolve only to`,
        'public addresses (not loopback, private, link-local or metadata ones): otherwise a 400 naming `url`.',
        `An unknown event type is a 400 listing the valid ones (${WEBHOOK_EVENT_TYPES.join(', ')}).`,
        'The answer carries the signing secret, shown this once.',
        `A tenant has at most ${MAX_WEBHOOK_ENDPOINTS_PER_TENANT} endpoints (422 beyond).`,
      ].join(' '),
      requestBody: body(request.newEndpoint, {
        bounces: {
          summary: 'Sends and bounces',
          value: { url: 'https://example.com/webhooks/fairlane', events: ['email.sent', 'email.bounced'] },
        },
      }),
      responses: responses(
        {
          '201': json(
            webhookEndpointWithSecretResponse,
            'Added and enabled, with its secret',
            locationHeader('endpoint'),
          ),
        },
        [400, 401, 413, 415, 422, 429],
      ),
    },
    'GET /api/v1/webhooks/:id': {
      operationId: 'getWebhook',
      tags: ['Webhooks'],
      summary: 'A webhook endpoint',
      requestParams: idParam('endpoint'),
      responses: responses(
        { '200': json(webhookEndpointResponse, 'The endpoint (never its secret)') },
        [401, 404, 429],
      ),
    },
    'PATCH /api/v1/webhooks/:id': {
      operationId: 'updateWebhook',
      tags: ['Webhooks'],
      summary: 'Change a webhook endpoint',
      description:
        'Any of `url` (checked as on create), `events`, `description`, `enabled`. `enabled: false` holds its deliveries; `enabled: true` again also lifts a disable for failing.',
      requestParams: idParam('endpoint'),
      requestBody: body(request.patch, { off: { summary: 'Switch it off', value: { enabled: false } } }),
      responses: responses(
        { '200': json(webhookEndpointResponse, 'The endpoint') },
        [400, 401, 404, 413, 415, 429],
      ),
    },
    'DELETE /api/v1/webhooks/:id': {
      operationId: 'deleteWebhook',
      tags: ['Webhooks'],
      summary: 'Delete a webhook endpoint',
      description: 'Its delivery log goes with it; nothing more is sent to it.',
      requestParams: idParam('endpoint'),
      responses: responses(
        { '200': json(webhookEndpointResponse, 'The endpoint as it was') },
        [401, 404, 429],
      ),
    },
    'POST /api/v1/webhooks/:id/rotate-secret': {
      operationId: 'rotateWebhookSecret',
      tags: ['Webhooks'],
      summary: 'Rotate the signing secret',
      description:
        'A new secret, shown this once. For 24 hours requests carry two signatures in `webhook-signature` (the new secret’s and the old one’s), so receivers can switch without rejecting anything.',
      requestParams: idParam('endpoint'),
      responses: responses(
        { '200': json(webhookEndpointWithSecretResponse, 'The endpoint with its new secret') },
        [401, 404, 429],
      ),
    },
    'POST /api/v1/webhooks/:id/test': {
      operationId: 'testWebhook',
      tags: ['Webhooks'],
      summary: 'Send a test event',
      description:
        'Queues a `webhook.test` event (`data: { endpointId }`) to the endpoint, whatever it subscribed to. A disabled endpoint is a 409.',
      requestParams: idParam('endpoint'),
      responses: responses(
        { '202': json(webhookDeliveryResponse, 'The delivery, pending') },
        [401, 404, 409, 429],
      ),
    },
    'GET /api/v1/webhooks/:id/deliveries': {
      operationId: 'listWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'The endpoint’s delivery log',
      description:
        'Newest first, a page at a time (`nextCursor`); kept for the event retention (30 days by default).',
      requestParams: { ...idParam('endpoint'), query: webhookDeliveriesQuerySchema },
      responses: responses(
        { '200': json(webhookDeliveriesPageResponse, 'A page of deliveries') },
        [400, 401, 404, 429],
      ),
    },
    'GET /api/v1/webhooks/:id/deliveries/:deliveryId': {
      operationId: 'getWebhookDelivery',
      tags: ['Webhooks'],
      summary: 'A delivery with its attempts',
      requestParams: deliveryParams,
      responses: responses(
        { '200': json(webhookDeliveryDetailResponse, 'The delivery, the body sent and every attempt') },
        [401, 404, 429],
      ),
    },
    'POST /api/v1/webhooks/:id/deliveries/:deliveryId/replay': {
      operationId: 'replayWebhookDelivery',
      tags: ['Webhooks'],
      summary: 'Replay a delivery',
      description:
        'Makes it pending and due now, with the same `webhook-id`; its attempts keep counting (a replay that fails again ends failed). A disabled endpoint is a 409.',
      requestParams: deliveryParams,
      responses: responses(
        { '202': json(webhookDeliveryResponse, 'The delivery, pending again') },
        [401, 404, 409, 429],
      ),
    },
    'POST /api/v1/webhooks/:id/deliveries/replay': {
      operationId: 'replayWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'Replay several deliveries',
      description: `Up to ${MAX_REPLAY_DELIVERIES} deliveries of the endpoint at once; ids that are not its deliveries are listed in \`notFound\` (all of them: 404).`,
      requestParams: idParam('endpoint'),
      requestBody: body(request.replay, {
        two: {
          summary: 'Two deliveries',
          value: { ids: ['0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70', '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f71'] },
        },
      }),
      responses: responses(
        { '202': json(webhookReplayResponse, 'What was replayed') },
        [400, 401, 404, 409, 413, 415, 429],
      ),
    },
  }
}

export const webhookSchemas = {
  WebhookEndpoint: webhookEndpointResponse,
  WebhookEndpointWithSecret: webhookEndpointWithSecretResponse,
  WebhookDelivery: webhookDeliveryResponse,
  WebhookDeliveryDetail: webhookDeliveryDetailResponse,
}
