import {
  MAX_WEBHOOK_ENDPOINTS_PER_TENANT,
  newWebhookEndpointSchema,
  WEBHOOK_EVENT_TYPES,
  webhookEndpointPatchSchema,
} from '@fairlane/core'
import { body, idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { postWebhookTest } from '../v1/webhook-deliveries'
import {
  webhookDeliveryResponse,
  webhookEndpointResponse,
  webhookEndpointsResponse,
  webhookEndpointWithSecretResponse,
} from '../v1/webhook-responses'
import {
  deleteWebhookById,
  getWebhookById,
  getWebhooks,
  patchWebhook,
  postWebhook,
  postWebhookRotateSecret,
} from '../v1/webhooks'
import { declareRoute } from './define'

const requestSchemas = {
  newEndpoint: newWebhookEndpointSchema.meta({ id: 'NewWebhookEndpointRequest' }),
  patch: webhookEndpointPatchSchema.meta({ id: 'WebhookEndpointPatchRequest' }),
}

const REQUEST_FORMAT = [
  'Each event is a `POST` of JSON `{ type, createdAt, data }` with the Standard Webhooks headers `webhook-id`',
  '(the same on every attempt), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of',
  '"<id>.<timestamp>.<body>">`, key = the base64 after `whsec_`), so the verifiers of Svix or Resend work unchanged.',
  'A 2xx within 10 seconds is delivered; anything else is retried with backoff for about a day.',
].join(' ')

/** Webhook endpoints, their secrets and test events. */
export const webhookRoutes = {
  listWebhooks: declareRoute({
    method: 'GET',
    path: '/api/v1/webhooks',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getWebhooks(request, deps.api),
    openapi: {
      operationId: 'listWebhooks',
      tags: ['Webhooks'],
      summary: 'List your webhook endpoints',
      responses: responses(
        { '200': json(webhookEndpointsResponse, 'Every endpoint, oldest first') },
        [401, 429],
      ),
    },
  }),
  addWebhook: declareRoute({
    method: 'POST',
    path: '/api/v1/webhooks',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postWebhook(request, deps.api),
    openapi: {
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
      requestBody: body(requestSchemas.newEndpoint, {
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
  }),
  getWebhook: declareRoute({
    method: 'GET',
    path: '/api/v1/webhooks/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getWebhookById(request, id, deps.api),
    openapi: {
      operationId: 'getWebhook',
      tags: ['Webhooks'],
      summary: 'A webhook endpoint',
      requestParams: idParam('endpoint'),
      responses: responses(
        { '200': json(webhookEndpointResponse, 'The endpoint (never its secret)') },
        [401, 404, 429],
      ),
    },
  }),
  updateWebhook: declareRoute({
    method: 'PATCH',
    path: '/api/v1/webhooks/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => patchWebhook(request, id, deps.api),
    openapi: {
      operationId: 'updateWebhook',
      tags: ['Webhooks'],
      summary: 'Change a webhook endpoint',
      description:
        'Any of `url` (checked as on create), `events`, `description`, `enabled`. `enabled: false` holds its deliveries; `enabled: true` again also lifts a disable for failing.',
      requestParams: idParam('endpoint'),
      requestBody: body(requestSchemas.patch, {
        off: { summary: 'Switch it off', value: { enabled: false } },
      }),
      responses: responses(
        { '200': json(webhookEndpointResponse, 'The endpoint') },
        [400, 401, 404, 413, 415, 429],
      ),
    },
  }),
  deleteWebhook: declareRoute({
    method: 'DELETE',
    path: '/api/v1/webhooks/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => deleteWebhookById(request, id, deps.api),
    openapi: {
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
  }),
  rotateWebhookSecret: declareRoute({
    method: 'POST',
    path: '/api/v1/webhooks/:id/rotate-secret',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postWebhookRotateSecret(request, id, deps.api),
    openapi: {
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
  }),
  testWebhook: declareRoute({
    method: 'POST',
    path: '/api/v1/webhooks/:id/test',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postWebhookTest(request, id, deps.api),
    openapi: {
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
  }),
}
