import type { AuditOf } from '../audit/audit-record'
import { type WebhookEndpointWithSecret, webhookEndpointView } from './endpoint-view'
import { endpointNotFound } from './get-webhook-endpoint'
import type { StoredWebhookEndpoint, WebhookEndpointDeps, WebhookEndpointQuery } from './ports'
import { generateWebhookSecret, WEBHOOK_SECRET_GRACE_MS } from './webhook-secret'

/**
 * A new signing secret, shown once in the answer. The old one keeps signing beside it (both
 * signatures in `webhook-signature`) for `WEBHOOK_SECRET_GRACE_MS`, so receivers still holding it keep
 * accepting requests while the tenant deploys the new one. A second rotation within the grace period
 * drops the secret before the current one: only two ever sign.
 */
export async function rotateWebhookSecret(
  input: WebhookEndpointQuery & { audit?: AuditOf<StoredWebhookEndpoint> | undefined },
  deps: WebhookEndpointDeps,
): Promise<WebhookEndpointWithSecret> {
  const { audit, ...query } = input
  const now = deps.clock.now()
  const secret = generateWebhookSecret()
  const updated = await deps.store.updateEndpoint(
    query,
    (current) => ({
      secret,
      previousSecret: current.secret,
      previousSecretExpiresAt: new Date(now.getTime() + WEBHOOK_SECRET_GRACE_MS),
    }),
    audit,
  )
  if (updated === null) throw endpointNotFound(query.endpointId)
  return { ...webhookEndpointView(updated, now), secret: updated.secret }
}
