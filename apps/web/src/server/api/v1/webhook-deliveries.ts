import {
  getWebhookDelivery,
  listWebhookDeliveries,
  parseReplayDeliveries,
  replayWebhookDeliveries,
  sendTestEvent,
  type WebhookDeliveryDetail,
  type WebhookDeliveryView,
} from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { apiAudit, audited } from '../../audit/record-audit'
import type { ApiCaller } from '../../auth/api-key'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type {
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookReplayResponse,
} from './webhook-responses'
import { endpointQuery, NO_STORE, webhookUseCaseDeps } from './webhooks'

/**
 * `/api/v1/webhooks/:id/deliveries` and the endpoint's test event: the delivery log (filter, cursor,
 * a delivery's attempts) and the two ways a tenant makes a delivery due now (test, replay).
 */

/** `{ ids }`: 100 UUIDs in JSON. */
export const MAX_REPLAY_BODY_BYTES = 8 * 1024

/** The contract's `{ id, eventType, webhookId, status, attempts, lastStatusCode?, lastError?, createdAt }` and more, absent when null. */
export function webhookDeliveryJson(delivery: WebhookDeliveryView): WebhookDeliveryResponse {
  const optional = <Value>(name: string, value: Value | null) => (value === null ? {} : { [name]: value })
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventType: delivery.eventType,
    webhookId: delivery.webhookId,
    status: delivery.status,
    attempts: delivery.attempts,
    ...optional('lastStatusCode', delivery.lastStatusCode),
    ...optional('lastError', delivery.lastError),
    ...optional('lastResponse', delivery.lastResponse),
    ...optional('lastAttemptAt', delivery.lastAttemptAt?.toISOString() ?? null),
    ...optional('nextAttemptAt', delivery.nextAttemptAt?.toISOString() ?? null),
    ...optional('deliveredAt', delivery.deliveredAt?.toISOString() ?? null),
    ...optional('failedAt', delivery.failedAt?.toISOString() ?? null),
    createdAt: delivery.createdAt.toISOString(),
  }
}

export function webhookDeliveryDetailJson(delivery: WebhookDeliveryDetail): WebhookDeliveryDetailResponse {
  return {
    ...webhookDeliveryJson(delivery),
    payload: delivery.payload,
    attemptLog: delivery.attemptLog.map((attempt) => ({
      attemptedAt: attempt.attemptedAt.toISOString(),
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode,
      error: attempt.error,
      responseExcerpt: attempt.responseExcerpt,
    })),
  }
}

function deliveryIdOf(id: string): string {
  if (!isUuid(id))
    throw new AppError('not_found', `No delivery of this endpoint with id ${JSON.stringify(id)}`)
  return id
}

const queryOf = (request: Request) => Object.fromEntries(new URL(request.url).searchParams)

/** `GET /api/v1/webhooks/:id/deliveries?status=&cursor=&limit=` → `{ items, nextCursor? }`, newest first. */
export function getWebhookDeliveries(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const page = await listWebhookDeliveries(
      { ...endpointQuery(caller.tenantId, id), query: queryOf(request) },
      webhookUseCaseDeps(deps),
    )
    return Response.json(
      {
        items: page.items.map(webhookDeliveryJson),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      },
      { headers: NO_STORE },
    )
  })
}

/** `GET /api/v1/webhooks/:id/deliveries/:deliveryId` → the delivery, its payload and its attempts. */
export function getWebhookDeliveryById(
  request: Request,
  id: string,
  deliveryId: string,
  deps: ApiDeps,
): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const query = endpointQuery(caller.tenantId, id)
    const detail = await getWebhookDelivery(
      { ...query, deliveryId: deliveryIdOf(deliveryId) },
      webhookUseCaseDeps(deps),
    )
    return Response.json(webhookDeliveryDetailJson(detail), { headers: NO_STORE })
  })
}

/** `POST /api/v1/webhooks/:id/deliveries/:deliveryId/replay` → `202` the delivery, pending again. */
export function postWebhookDeliveryReplay(
  request: Request,
  id: string,
  deliveryId: string,
  deps: ApiDeps,
): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const query = endpointQuery(caller.tenantId, id)
    const outcome = await replayWebhookDeliveries(
      {
        ...query,
        deliveryIds: [deliveryIdOf(deliveryId)],
        audit: replayAudit(request, caller, query.endpointId),
      },
      webhookUseCaseDeps(deps),
    )
    const [replayed] = outcome.replayed
    if (!replayed)
      throw new AppError('not_found', `No delivery of this endpoint with id ${JSON.stringify(deliveryId)}`)
    return Response.json(webhookDeliveryJson(replayed), { status: 202, headers: NO_STORE })
  })
}

/** `POST /api/v1/webhooks/:id/deliveries/replay` `{ ids }` → `202 { items, notFound }`. */
export function postWebhookDeliveriesReplay(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const query = endpointQuery(caller.tenantId, id)
    const deliveryIds = parseReplayDeliveries(await readJsonBody(request, MAX_REPLAY_BODY_BYTES))
    const outcome = await replayWebhookDeliveries(
      { ...query, deliveryIds, audit: replayAudit(request, caller, query.endpointId) },
      webhookUseCaseDeps(deps),
    )
    const body: WebhookReplayResponse = {
      items: outcome.replayed.map(webhookDeliveryJson),
      notFound: outcome.notFound,
    }
    return Response.json(body, { status: 202, headers: NO_STORE })
  })
}

/** `POST /api/v1/webhooks/:id/test` → `202` a pending `webhook.test` delivery to the endpoint. */
export function postWebhookTest(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const delivery = await sendTestEvent(
      { ...endpointQuery(caller.tenantId, id), audit: apiAudit(request, caller, audited.webhookTestSent) },
      webhookUseCaseDeps(deps),
    )
    return Response.json(webhookDeliveryJson(delivery), { status: 202, headers: NO_STORE })
  })
}

/** A replay's audit entry: the endpoint, and the deliveries made due again. */
function replayAudit(request: Request, caller: ApiCaller, endpointId: string) {
  return apiAudit(request, caller, (replayed: Array<{ id: string }>) =>
    audited.webhookReplayed(
      endpointId,
      replayed.map((delivery) => delivery.id),
    ),
  )
}
