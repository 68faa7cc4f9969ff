import { endpointDisabledNotice, WEBHOOK_DISABLE_AFTER_MS } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { PLATFORM_TENANT_NAME } from '@fairlane/db/queries/platform-tenant'
import { disableFailingWebhookEndpoints } from '@fairlane/db/queries/webhook-health'
import type { Logger } from 'pino'

/** Stable scheduler id: every worker process upserts the same one. */
export const WEBHOOK_HEALTH_SCHEDULER_ID = 'webhook-endpoint-health'
/** An endpoint is disabled at most this long after its third day of failures. */
export const WEBHOOK_HEALTH_EVERY_MS = 10 * 60_000

/**
 * Disables the endpoints that failed every delivery for 3 days and tells each tenant's owners and
 * admins by mail (through the default lane, as the platform tenant's account mail).
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
    platformTenantName: PLATFORM_TENANT_NAME,
  })
  for (const endpoint of disabled) {
    deps.logger.warn(
      {
        endpointId: endpoint.endpointId,
        tenantId: endpoint.tenantId,
        failingSince: endpoint.failingSince,
        notified: endpoint.notifiedAddresses.length,
      },
      endpoint.notifiedAddresses.length > 0
        ? 'webhook endpoint disabled after 3 days of failures; its owners and admins were told'
        : 'webhook endpoint disabled after 3 days of failures; its tenant has nobody to tell',
    )
  }
  return { disabled: disabled.length }
}
