import type { NewWebhookEndpoint } from './endpoint-input'
import { type WebhookEndpointWithSecret, webhookEndpointView } from './endpoint-view'
import type { WebhookUrlDeps } from './ports'
import { generateWebhookSecret } from './webhook-secret'
import { checkWebhookUrl } from './webhook-url'

/**
 * Adds an endpoint, enabled, with a new signing secret. The answer is the only place the secret is
 * shown (until a rotation): the tenant copies it into the receiver that verifies the signatures.
 */
export async function createWebhookEndpoint(
  input: { tenantId: string; endpoint: NewWebhookEndpoint },
  deps: WebhookUrlDeps,
): Promise<WebhookEndpointWithSecret> {
  const url = await checkWebhookUrl(input.endpoint.url, deps)
  const stored = await deps.store.insertEndpoint({
    tenantId: input.tenantId,
    url,
    description: input.endpoint.description ?? null,
    events: input.endpoint.events,
    secret: generateWebhookSecret(),
  })
  return { ...webhookEndpointView(stored, deps.clock.now()), secret: stored.secret }
}
