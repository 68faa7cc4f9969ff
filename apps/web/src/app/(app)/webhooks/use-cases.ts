import 'server-only'
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookDelivery,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  type NewWebhookEndpoint,
  replayWebhookDeliveries,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhookEndpoint,
  type WebhookDeliveryDetail,
  type WebhookEndpointPatch,
  type WebhookEndpointQuery,
  type WebhookEndpointView,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { webhookUseCaseDeps } from '@/server/api/v1/webhooks'
import { container } from '@/server/container'

/** The same dependencies as `/api/v1/webhooks`: the container's DNS lookup and WEBHOOK_ALLOW_PRIVATE. */
function deps() {
  return webhookUseCaseDeps(container().api)
}

/** Null for `not_found` (a missing id or another tenant's): the pages answer both with a 404. */
async function orNull<Result>(run: () => Promise<Result>): Promise<Result | null> {
  try {
    return await run()
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') return null
    throw error
  }
}

/**
 * The webhook use cases for the Webhooks pages and actions, scoped by the tenant the caller read from
 * the session: the same functions, rules and errors as `/api/v1/webhooks`.
 */
export function webhookUseCases() {
  return {
    list: (input: { tenantId: string }) => listWebhookEndpoints(input, deps()),
    get: (query: WebhookEndpointQuery): Promise<WebhookEndpointView | null> =>
      orNull(() => getWebhookEndpoint(query, deps())),
    create: (input: { tenantId: string; endpoint: NewWebhookEndpoint }) =>
      createWebhookEndpoint(input, deps()),
    update: (input: WebhookEndpointQuery & { patch: WebhookEndpointPatch }) =>
      updateWebhookEndpoint(input, deps()),
    remove: (query: WebhookEndpointQuery) => deleteWebhookEndpoint(query, deps()),
    rotateSecret: (query: WebhookEndpointQuery) => rotateWebhookSecret(query, deps()),
    sendTest: (query: WebhookEndpointQuery) => sendTestEvent(query, deps()),
    replay: (input: WebhookEndpointQuery & { deliveryIds: string[] }) =>
      replayWebhookDeliveries(input, deps()),
    deliveries: (input: WebhookEndpointQuery & { query: Record<string, string> }) =>
      listWebhookDeliveries(input, deps()),
    delivery: (input: WebhookEndpointQuery & { deliveryId: string }): Promise<WebhookDeliveryDetail | null> =>
      orNull(() => getWebhookDelivery(input, deps())),
  }
}
