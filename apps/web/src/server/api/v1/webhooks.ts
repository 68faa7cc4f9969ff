import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  parseNewWebhookEndpoint,
  parseWebhookEndpointPatch,
  rotateWebhookSecret,
  type StoredWebhookEndpoint,
  updateWebhookEndpoint,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
} from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { createWebhookDeliveryStore } from '@fairlane/db/queries/webhook-delivery-log'
import { createWebhookEndpointStore } from '@fairlane/db/queries/webhook-endpoints'
import { apiAudit, audited } from '../../audit/record-audit'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { WebhookEndpointResponse, WebhookEndpointWithSecretResponse } from './webhook-responses'

/**
 * `/api/v1/webhooks`: the tenant's webhook endpoints. Handlers only authorize, read and answer; the
 * rules (the URL's address check, the secret, re-enabling) are core's (`webhooks/`). The secret is
 * answered by create and rotate only. The delivery log is in `webhook-deliveries.ts`.
 */

/** `{ url, events, description }`: a 2,048-character URL, every event type and a note fit with room. */
export const MAX_WEBHOOK_BODY_BYTES = 16 * 1024

export const NO_STORE = { 'cache-control': 'no-store' }

const iso = (date: Date | null) => date?.toISOString() ?? null

export function webhookEndpointJson(endpoint: WebhookEndpointView): WebhookEndpointResponse {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    description: endpoint.description,
    disabledReason: endpoint.disabledReason,
    disabledAt: iso(endpoint.disabledAt),
    failingSince: iso(endpoint.failingSince),
    lastSuccessAt: iso(endpoint.lastSuccessAt),
    previousSecretExpiresAt: iso(endpoint.previousSecretExpiresAt),
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  }
}

function withSecretJson(endpoint: WebhookEndpointWithSecret): WebhookEndpointWithSecretResponse {
  return { ...webhookEndpointJson(endpoint), secret: endpoint.secret }
}

/** What the webhook use cases take: the API's handlers and the Webhooks page's actions alike. */
export function webhookUseCaseDeps(deps: ApiDeps) {
  const store = createWebhookEndpointStore(deps.db)
  return {
    store,
    clock: deps.clock,
    ...deps.webhooks,
    endpoints: store,
    deliveries: createWebhookDeliveryStore(deps.db),
  }
}

/** A malformed id reads as missing, like another tenant's: PostgreSQL would refuse it otherwise. */
export function endpointQuery(tenantId: string, id: string) {
  if (!isUuid(id)) throw new AppError('not_found', `No webhook endpoint with id ${JSON.stringify(id)}`)
  return { tenantId, endpointId: id }
}

/** `GET /api/v1/webhooks` → `{ items: [endpoint] }`, oldest first. */
export function getWebhooks(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const items = await listWebhookEndpoints({ tenantId: caller.tenantId }, webhookUseCaseDeps(deps))
    return Response.json({ items: items.map(webhookEndpointJson) }, { headers: NO_STORE })
  })
}

/** `POST /api/v1/webhooks` `{ url, events, description? }` → `201` the endpoint with its secret (only here). */
export function postWebhook(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const endpoint = parseNewWebhookEndpoint(await readJsonBody(request, MAX_WEBHOOK_BODY_BYTES))
    const created = await createWebhookEndpoint(
      { tenantId: caller.tenantId, endpoint, audit: apiAudit(request, caller, audited.webhookCreated) },
      webhookUseCaseDeps(deps),
    )
    return Response.json(withSecretJson(created), {
      status: 201,
      headers: { ...NO_STORE, location: `/api/v1/webhooks/${created.id}` },
    })
  })
}

/** `GET /api/v1/webhooks/:id` → the endpoint (never its secret). */
export function getWebhookById(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const endpoint = await getWebhookEndpoint(endpointQuery(caller.tenantId, id), webhookUseCaseDeps(deps))
    return Response.json(webhookEndpointJson(endpoint), { headers: NO_STORE })
  })
}

/** `PATCH /api/v1/webhooks/:id` `{ url?, events?, enabled?, description? }` → the endpoint afterwards. */
export function patchWebhook(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const query = endpointQuery(caller.tenantId, id)
    const patch = parseWebhookEndpointPatch(await readJsonBody(request, MAX_WEBHOOK_BODY_BYTES))
    const audit = apiAudit(request, caller, (endpoint: StoredWebhookEndpoint) =>
      audited.webhookUpdated(endpoint, Object.keys(patch)),
    )
    const updated = await updateWebhookEndpoint({ ...query, patch, audit }, webhookUseCaseDeps(deps))
    return Response.json(webhookEndpointJson(updated), { headers: NO_STORE })
  })
}

/** `DELETE /api/v1/webhooks/:id` → the endpoint as it was; its deliveries go with it. */
export function deleteWebhookById(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const deleted = await deleteWebhookEndpoint(
      { ...endpointQuery(caller.tenantId, id), audit: apiAudit(request, caller, audited.webhookDeleted) },
      webhookUseCaseDeps(deps),
    )
    return Response.json(webhookEndpointJson(deleted), { headers: NO_STORE })
  })
}

/** `POST /api/v1/webhooks/:id/rotate-secret` → the endpoint with its new secret (the old one signs 24 h more). */
export function postWebhookRotateSecret(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const audit = apiAudit(request, caller, (endpoint: StoredWebhookEndpoint) =>
      audited.webhookSecretRotated(endpoint.id),
    )
    const rotated = await rotateWebhookSecret(
      { ...endpointQuery(caller.tenantId, id), audit },
      webhookUseCaseDeps(deps),
    )
    return Response.json(withSecretJson(rotated), { headers: NO_STORE })
  })
}
