import { sql } from 'drizzle-orm'
import type { Database } from '../client'
import { ensurePlatformTenant } from './platform-tenant'
import { type Notice, queueTenantNotices } from './tenant-notices'

export interface DisabledWebhookEndpoint {
  endpointId: string
  tenantId: string
  url: string
  failingSince: Date
  /** The owners and admins the notice went to (one message each); empty when there is nobody to tell. */
  notifiedAddresses: string[]
  noticeMessageIds: string[]
}

/**
 * Disables every enabled endpoint that has failed since before `failingBefore` without a success
 * since (`disabled_reason` 'failing', the Webhooks page's banner reads it), and queues, in the same
 * transaction, a notice to each of the tenant's owners and admins on the default lane: account mail,
 * so a message of the platform tenant (Fairlane's own, from the platform's MAIL_FROM), not one
 * counted against the tenant's plan. The disable and its notices commit together, so a notice is
 * never lost nor sent twice.
 */
export function disableFailingWebhookEndpoints(
  db: Database,
  input: {
    failingBefore: Date
    notice: (endpoint: { url: string; failingSince: Date }) => Notice
    /** The platform tenant's name, should this be its first message (`ensurePlatformTenant`). */
    platformTenantName: string
  },
): Promise<DisabledWebhookEndpoint[]> {
  return db.transaction(async (tx) => {
    const rows = await tx.execute<{
      id: string
      tenant_id: string
      url: string
      failing_since: Date | string
    }>(sql`
      update webhook_endpoints
      set enabled = false, disabled_reason = 'failing', disabled_at = now(), updated_at = now()
      where enabled and failing_since < ${input.failingBefore.toISOString()}::timestamptz
        and (last_success_at is null or last_success_at < failing_since)
      returning id, tenant_id, url, failing_since`)
    const disabled: DisabledWebhookEndpoint[] = []
    if (rows.length === 0) return disabled
    const platformTenantId = await ensurePlatformTenant(tx, { name: input.platformTenantName })
    for (const row of rows) {
      const endpoint = { url: row.url, failingSince: new Date(row.failing_since) }
      const notified = await queueTenantNotices(tx, row.tenant_id, platformTenantId, input.notice(endpoint))
      disabled.push({
        endpointId: row.id,
        tenantId: row.tenant_id,
        ...endpoint,
        notifiedAddresses: notified.map((notice) => notice.to),
        noticeMessageIds: notified.map((notice) => notice.messageId),
      })
    }
    return disabled
  })
}
