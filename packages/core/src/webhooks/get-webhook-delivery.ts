import { AppError } from '../errors/app-error'
import { type WebhookDeliveryDetail, webhookDeliveryView } from './delivery-view'
import { findOwnEndpoint } from './get-webhook-endpoint'
import type { WebhookDeliveryDeps, WebhookEndpointQuery } from './ports'

/** One delivery of the endpoint with its payload and every attempt; another endpoint's or tenant's is a 404. */
export async function getWebhookDelivery(
  input: WebhookEndpointQuery & { deliveryId: string },
  deps: WebhookDeliveryDeps,
): Promise<WebhookDeliveryDetail> {
  await findOwnEndpoint({ tenantId: input.tenantId, endpointId: input.endpointId }, { store: deps.endpoints })
  const delivery = await deps.deliveries.findDelivery(input)
  if (delivery === null) throw deliveryNotFound(input.deliveryId)
  const attemptLog = await deps.deliveries.listAttempts({ tenantId: input.tenantId, deliveryId: delivery.id })
  return { ...webhookDeliveryView(delivery), payload: delivery.payload, attemptLog }
}

export function deliveryNotFound(deliveryId: string): AppError {
  return new AppError('not_found', `No delivery of this endpoint with id ${JSON.stringify(deliveryId)}`)
}
