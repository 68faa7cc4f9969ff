import type { AuditOf } from '../audit/audit-record'
import { AppError } from '../errors/app-error'
import { type WebhookDeliveryView, webhookDeliveryView } from './delivery-view'
import { WEBHOOK_TEST_EVENT_TYPE } from './event-types'
import { endpointNotFound, findOwnEndpoint } from './get-webhook-endpoint'
import type { StoredWebhookDelivery, WebhookDeliveryDeps, WebhookEndpointQuery } from './ports'

/**
 * The "Send test event" button: a `webhook.test` delivery to the endpoint, whatever it subscribed to,
 * due now (the relay is woken in the same transaction). Refused (409) while the endpoint is disabled:
 * the worker sends nothing to a disabled endpoint, so the test would only wait.
 */
export async function sendTestEvent(
  input: WebhookEndpointQuery & { audit?: AuditOf<StoredWebhookDelivery> | undefined },
  deps: WebhookDeliveryDeps,
): Promise<WebhookDeliveryView> {
  const { audit, ...query } = input
  const endpoint = await findOwnEndpoint(query, { store: deps.endpoints })
  if (!endpoint.enabled) throw endpointDisabled('send a test event')
  const delivery = await deps.deliveries.insertDelivery(
    {
      ...query,
      eventType: WEBHOOK_TEST_EVENT_TYPE,
      payload: {
        type: WEBHOOK_TEST_EVENT_TYPE,
        createdAt: deps.clock.now().toISOString(),
        data: { endpointId: query.endpointId },
      },
    },
    audit,
  )
  if (delivery === null) throw endpointNotFound(query.endpointId)
  return webhookDeliveryView(delivery)
}

export function endpointDisabled(action: string): AppError {
  return new AppError('conflict', `The endpoint is disabled; enable it to ${action}`)
}
