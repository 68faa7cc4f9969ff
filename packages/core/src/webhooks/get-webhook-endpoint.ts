import { AppError } from '../errors/app-error'
import { type WebhookEndpointView, webhookEndpointView } from './endpoint-view'
import type {
  StoredWebhookEndpoint,
  WebhookEndpointDeps,
  WebhookEndpointQuery,
  WebhookEndpointStore,
} from './ports'

/** One of the tenant's endpoints; another tenant's id reads as missing (404). */
export async function getWebhookEndpoint(
  query: WebhookEndpointQuery,
  deps: WebhookEndpointDeps,
): Promise<WebhookEndpointView> {
  return webhookEndpointView(await findOwnEndpoint(query, deps), deps.clock.now())
}

export async function findOwnEndpoint(
  query: WebhookEndpointQuery,
  deps: { store: WebhookEndpointStore },
): Promise<StoredWebhookEndpoint> {
  const endpoint = await deps.store.findEndpoint(query)
  if (endpoint === null) throw endpointNotFound(query.endpointId)
  return endpoint
}

export function endpointNotFound(endpointId: string): AppError {
  return new AppError('not_found', `No webhook endpoint with id ${JSON.stringify(endpointId)}`)
}
