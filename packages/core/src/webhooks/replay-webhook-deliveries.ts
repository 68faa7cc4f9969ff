import { z } from 'zod'
import type { AuditOf } from '../audit/audit-record'
import { AppError, validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { type WebhookDeliveryView, webhookDeliveryView } from './delivery-view'
import { findOwnEndpoint } from './get-webhook-endpoint'
import type { StoredWebhookDelivery, WebhookDeliveryDeps, WebhookEndpointQuery } from './ports'
import { endpointDisabled } from './send-test-event'

export const MAX_REPLAY_DELIVERIES = 100

/** `POST /api/v1/webhooks/:id/deliveries/replay`'s body: several deliveries of the endpoint at once. */
export const replayDeliveriesSchema = z.strictObject({
  ids: z
    .array(z.uuid({ error: 'is not a delivery id' }), { error: 'is required: a list of delivery ids' })
    .min(1, 'must name at least one delivery')
    .max(MAX_REPLAY_DELIVERIES, `must name at most ${MAX_REPLAY_DELIVERIES} deliveries`)
    .meta({ description: 'Delivery ids of this endpoint' }),
})

export function parseReplayDeliveries(body: unknown): string[] {
  const parsed = replayDeliveriesSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return [...new Set(parsed.data.ids)]
}

export interface ReplayOutcome {
  replayed: WebhookDeliveryView[]
  /** Ids that are not deliveries of this endpoint (another endpoint's, another tenant's, or none). */
  notFound: string[]
}

/**
 * Sends deliveries again: each becomes pending and due now, with the same `webhook-id` (a receiver
 * that already processed it recognises it) and its attempts still counting, so the retry rule goes on
 * where it stopped: a replay that fails again ends failed. One id that is not the endpoint's is a
 * 404; of several, those are listed and the rest replayed. Refused (409) while the endpoint is disabled.
 */
export async function replayWebhookDeliveries(
  input: WebhookEndpointQuery & {
    deliveryIds: readonly string[]
    /** The replay's audit entry, written with it (not when no delivery was found). */
    audit?: AuditOf<StoredWebhookDelivery[]> | undefined
  },
  deps: WebhookDeliveryDeps,
): Promise<ReplayOutcome> {
  const query = { tenantId: input.tenantId, endpointId: input.endpointId }
  const endpoint = await findOwnEndpoint(query, { store: deps.endpoints })
  if (!endpoint.enabled) throw endpointDisabled('replay deliveries')
  const replayed = await deps.deliveries.replayDeliveries(
    { ...query, deliveryIds: input.deliveryIds },
    input.audit,
  )
  const found = new Set(replayed.map((delivery) => delivery.id))
  const notFound = input.deliveryIds.filter((id) => !found.has(id))
  if (replayed.length === 0) {
    const which =
      input.deliveryIds.length === 1 ? `id ${JSON.stringify(input.deliveryIds[0])}` : 'of these ids'
    throw new AppError('not_found', `No delivery of this endpoint with ${which}`)
  }
  return { replayed: replayed.map(webhookDeliveryView), notFound }
}
