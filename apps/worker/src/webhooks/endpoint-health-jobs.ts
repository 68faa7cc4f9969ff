import { endpointDisabledNotice, WEBHOOK_DISABLE_AFTER_MS } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { disableFailingWebhookEndpoints } from '@fairlane/db/queries/webhook-health'
import type { Logger } from 'pino'

/** Stable scheduler id: every worker process upserts the same one. */
export const WEBHOOK_HEALTH_SCHEDULER_ID = 'webhook-endpoint-health'
/** An endpoint is disabled at most this long after its third day of failures. */
export const WEBHOOK_HEALTH_EVERY_MS = 10 * 60_000

/**
 * Disables the endpoints that failed every delivery for 3 days and tells each tenant's owner by
 * mail (through the default lane, as a message of that tenant).
 */
export async function disableFailingEndpoints(deps: {
  db: Database
  appUrl: string
  clock: { now(): Date }
  logger: Logger
}) {
  const disabled = await disableFailingWebhookEndpoints(deps.db, {
    failingBefore: new Date(deps.clock.now().getTime() - WEBHOOK_DISABLE_AFTER_MS),
    notice: (endpoint) => endpointDisabledNotice({ ...endpoint, appUrl: deps.appUrl }),
  })
  for (const endpoint of disabled) {
    deps.logger.warn(
      {
        endpointId: endpoint.endpointId,
        tenantId: endpoint.tenantId,
        failingSince: endpoint.failingSince,
        notified: endpoint.notifiedAddress !== null,
      },
      endpoint.notifiedAddress
        ? 'webhook endpoint disabled after 3 days of failures; its owner was told'
        : 'webhook endpoint disabled after 3 days of failures; its tenant has no owner to tell',
    )
  }
  return { disabled: disabled.length }
}
