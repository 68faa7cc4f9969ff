import type { AuditOf } from '../audit/audit-record'
import { type WebhookEndpointView, webhookEndpointView } from './endpoint-view'
import { endpointNotFound, findOwnEndpoint } from './get-webhook-endpoint'
import type { StoredWebhookEndpoint, WebhookEndpointDeps, WebhookEndpointQuery } from './ports'

/**
 * Deletes an endpoint, answering it as it was. Its deliveries and their attempts go with it (a
 * delivery in flight finds its row gone and is dropped): nothing is sent to a URL the tenant removed.
 */
export async function deleteWebhookEndpoint(
  input: WebhookEndpointQuery & { audit?: AuditOf<StoredWebhookEndpoint> | undefined },
  deps: WebhookEndpointDeps,
): Promise<WebhookEndpointView> {
  const { audit, ...query } = input
  const endpoint = await findOwnEndpoint(query, deps)
  if (!(await deps.store.deleteEndpoint(query, audit?.(endpoint)))) throw endpointNotFound(query.endpointId)
  return webhookEndpointView(endpoint, deps.clock.now())
}
