import type { AuditOf } from '../audit/audit-record'
import { AppError } from '../errors/app-error'
import type { NewWebhookEndpoint } from './endpoint-input'
import { type WebhookEndpointWithSecret, webhookEndpointView } from './endpoint-view'
import type { StoredWebhookEndpoint, WebhookUrlDeps } from './ports'
import { generateWebhookSecret } from './webhook-secret'
import { checkWebhookUrl } from './webhook-url'

/**
 * The most endpoints a tenant may have: every event is one delivery per subscribed endpoint, so the
 * count multiplies the tenant's work on the shared webhook lane (Postmark allows 10 per server).
 */
export const MAX_WEBHOOK_ENDPOINTS_PER_TENANT = 20

/**
 * Adds an endpoint, enabled, with a new signing secret. The answer is the only place the secret is
 * shown (until a rotation): the tenant copies it into the receiver that verifies the signatures.
 * Refused (`unprocessable`) while the tenant has the most endpoints allowed.
 */
export async function createWebhookEndpoint(
  input: {
    tenantId: string
    endpoint: NewWebhookEndpoint
    /** The creation's audit entry, written with it. */
    audit?: AuditOf<StoredWebhookEndpoint> | undefined
  },
  deps: WebhookUrlDeps,
): Promise<WebhookEndpointWithSecret> {
  const url = await checkWebhookUrl(input.endpoint.url, deps)
  const stored = await deps.store.insertEndpoint(
    {
      tenantId: input.tenantId,
      url,
      description: input.endpoint.description ?? null,
      events: input.endpoint.events,
      secret: generateWebhookSecret(),
      maxEndpoints: MAX_WEBHOOK_ENDPOINTS_PER_TENANT,
    },
    input.audit,
  )
  if (stored === null) {
    throw new AppError(
      'unprocessable',
      `This account already has ${MAX_WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints, the most allowed. Delete one you no longer use, or subscribe an existing one to more events.`,
    )
  }
  return { ...webhookEndpointView(stored, deps.clock.now()), secret: stored.secret }
}
