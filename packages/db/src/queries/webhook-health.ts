import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Database, Transaction } from '../client'
import { insertQueuedMessage } from './accept-message'
import { ensurePlatformTenant } from './platform-tenant'

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
      const notified = await queueNotices(tx, row.tenant_id, platformTenantId, input.notice(endpoint))
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

interface Notice {
  subject: string
  text: string
  html: string
}

/** One notice per owner or admin of `tenantId`, each a queued message of the platform tenant. */
async function queueNotices(
  tx: Transaction,
  tenantId: string,
  platformTenantId: string,
  notice: Notice,
): Promise<Array<{ to: string; messageId: string }>> {
  const people = await tx.execute<{ email: string }>(sql`
    select distinct on (u.email) u.email from memberships m join users u on u.id = m.user_id
    where m.tenant_id = ${tenantId} and m.role in ('owner', 'admin')
    order by u.email`)
  const queued: Array<{ to: string; messageId: string }> = []
  for (const person of people) {
    const messageId = randomUUID()
    await insertQueuedMessage(
      tx,
      {
        id: messageId,
        tenantId: platformTenantId,
        lane: 'default',
        toAddress: person.email,
        subject: notice.subject,
        html: notice.html,
        text: notice.text,
        template: null,
        variables: null,
        idempotencyKey: null,
        requestHash: createHash('sha256').update(`${notice.subject}\n${notice.text}`).digest('hex'),
        queuedAt: new Date(),
      },
      { v: 1, messageId, tenantId: platformTenantId, lane: 'default', generation: 0 },
    )
    queued.push({ to: person.email, messageId })
  }
  return queued
}
