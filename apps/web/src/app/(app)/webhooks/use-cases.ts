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
  type StoredWebhookEndpoint,
  sendTestEvent,
  updateWebhookEndpoint,
  type WebhookDeliveryDetail,
  type WebhookEndpointPatch,
  type WebhookEndpointQuery,
  type WebhookEndpointView,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { webhookUseCaseDeps } from '@/server/api/v1/webhooks'
import { type AuditedWhat, auditBy, audited } from '@/server/audit/record-audit'
import { currentAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'

/** The signed-in user's change, written with it in the tenant's audit log. */
async function audit<T>(what: (changed: T) => AuditedWhat) {
  return auditBy(await currentAuditActor(), what)
}

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
    create: async (input: { tenantId: string; endpoint: NewWebhookEndpoint }) =>
      createWebhookEndpoint({ ...input, audit: await audit(audited.webhookCreated) }, deps()),
    update: async (input: WebhookEndpointQuery & { patch: WebhookEndpointPatch }) => {
      const changed = Object.keys(input.patch)
      const what = (endpoint: StoredWebhookEndpoint) => audited.webhookUpdated(endpoint, changed)
      return updateWebhookEndpoint({ ...input, audit: await audit(what) }, deps())
    },
    remove: async (query: WebhookEndpointQuery) =>
      deleteWebhookEndpoint({ ...query, audit: await audit(audited.webhookDeleted) }, deps()),
    rotateSecret: async (query: WebhookEndpointQuery) => {
      const what = (endpoint: StoredWebhookEndpoint) => audited.webhookSecretRotated(endpoint.id)
      return rotateWebhookSecret({ ...query, audit: await audit(what) }, deps())
    },
    sendTest: async (query: WebhookEndpointQuery) =>
      sendTestEvent({ ...query, audit: await audit(audited.webhookTestSent) }, deps()),
    replay: async (input: WebhookEndpointQuery & { deliveryIds: string[] }) => {
      const what = (replayed: Array<{ id: string }>) =>
        audited.webhookReplayed(
          input.endpointId,
          replayed.map((delivery) => delivery.id),
        )
      return replayWebhookDeliveries({ ...input, audit: await audit(what) }, deps())
    },
    deliveries: (input: WebhookEndpointQuery & { query: Record<string, string> }) =>
      listWebhookDeliveries(input, deps()),
    delivery: (input: WebhookEndpointQuery & { deliveryId: string }): Promise<WebhookDeliveryDetail | null> =>
      orNull(() => getWebhookDelivery(input, deps())),
  }
}
