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
import { type AuditedWhat, audited, recordAudit } from '@/server/audit/record-audit'
import { currentAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'

/** The signed-in user's change, in the tenant's audit log. */
async function audit(tenantId: string, what: AuditedWhat) {
  await recordAudit(container().database.db, { tenantId, actor: await currentAuditActor(), ...what })
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
    create: async (input: { tenantId: string; endpoint: NewWebhookEndpoint }) => {
      const endpoint = await createWebhookEndpoint(input, deps())
      await audit(input.tenantId, audited.webhookCreated(endpoint))
      return endpoint
    },
    update: async (input: WebhookEndpointQuery & { patch: WebhookEndpointPatch }) => {
      const endpoint = await updateWebhookEndpoint(input, deps())
      await audit(input.tenantId, audited.webhookUpdated(endpoint, Object.keys(input.patch)))
      return endpoint
    },
    remove: async (query: WebhookEndpointQuery) => {
      const endpoint = await deleteWebhookEndpoint(query, deps())
      await audit(query.tenantId, audited.webhookDeleted(endpoint))
      return endpoint
    },
    rotateSecret: async (query: WebhookEndpointQuery) => {
      const endpoint = await rotateWebhookSecret(query, deps())
      await audit(query.tenantId, audited.webhookSecretRotated(endpoint.id))
      return endpoint
    },
    sendTest: (query: WebhookEndpointQuery) => sendTestEvent(query, deps()),
    replay: (input: WebhookEndpointQuery & { deliveryIds: string[] }) =>
      replayWebhookDeliveries(input, deps()),
    deliveries: (input: WebhookEndpointQuery & { query: Record<string, string> }) =>
      listWebhookDeliveries(input, deps()),
    delivery: (input: WebhookEndpointQuery & { deliveryId: string }): Promise<WebhookDeliveryDetail | null> =>
      orNull(() => getWebhookDelivery(input, deps())),
  }
}
