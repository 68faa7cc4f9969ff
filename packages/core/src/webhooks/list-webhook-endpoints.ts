import { type WebhookEndpointView, webhookEndpointView } from './endpoint-view'
import type { WebhookEndpointDeps } from './ports'

/** The tenant's endpoints, oldest first. */
export async function listWebhookEndpoints(
  query: { tenantId: string },
  deps: WebhookEndpointDeps,
): Promise<WebhookEndpointView[]> {
  const now = deps.clock.now()
  return (await deps.store.listEndpoints(query)).map((endpoint) => webhookEndpointView(endpoint, now))
}
