import { MAX_REPLAY_DELIVERIES, replayDeliveriesSchema, webhookDeliveriesQuerySchema } from '@fairlane/core'
import { z } from 'zod'
import { body, idParam, json, responses } from '../v1/openapi/operation-helpers'
import {
  getWebhookDeliveries,
  getWebhookDeliveryById,
  postWebhookDeliveriesReplay,
  postWebhookDeliveryReplay,
} from '../v1/webhook-deliveries'
import {
  webhookDeliveriesPageResponse,
  webhookDeliveryDetailResponse,
  webhookDeliveryResponse,
  webhookReplayResponse,
} from '../v1/webhook-responses'
import { declareRoute } from './define'

const requestSchemas = { replay: replayDeliveriesSchema.meta({ id: 'ReplayWebhookDeliveriesRequest' }) }

const deliveryParams = {
  path: z.object({
    id: idParam('endpoint').path.shape.id,
    deliveryId: z.string().meta({ description: 'The delivery’s id (a UUID) in the endpoint’s log' }),
  }),
}

/** A webhook endpoint's delivery log: its deliveries, their attempts, replays. */
export const webhookDeliveryRoutes = {
  listWebhookDeliveries: declareRoute({
    method: 'GET',
    path: '/api/v1/webhooks/:id/deliveries',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getWebhookDeliveries(request, id, deps.api),
    openapi: {
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
  }),
  getWebhookDelivery: declareRoute({
    method: 'GET',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id, deliveryId }, deps) => getWebhookDeliveryById(request, id, deliveryId, deps.api),
    openapi: {
      operationId: 'getWebhookDelivery',
      tags: ['Webhooks'],
      summary: 'A delivery with its attempts',
      requestParams: deliveryParams,
      responses: responses(
        { '200': json(webhookDeliveryDetailResponse, 'The delivery, the body sent and every attempt') },
        [401, 404, 429],
      ),
    },
  }),
  replayWebhookDelivery: declareRoute({
    method: 'POST',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId/replay',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id, deliveryId }, deps) =>
      postWebhookDeliveryReplay(request, id, deliveryId, deps.api),
    openapi: {
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
  }),
  replayWebhookDeliveries: declareRoute({
    method: 'POST',
    path: '/api/v1/webhooks/:id/deliveries/replay',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postWebhookDeliveriesReplay(request, id, deps.api),
    openapi: {
      operationId: 'replayWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'Replay several deliveries',
      description: `Up to ${MAX_REPLAY_DELIVERIES} deliveries of the endpoint at once; ids that are not its deliveries are listed in \`notFound\` (all of them: 404).`,
      requestParams: idParam('endpoint'),
      requestBody: body(requestSchemas.replay, {
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
  }),
}
