import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Database, Transaction } from '../client'
import { insertQueuedMessage } from './accept-message'

export interface DisabledWebhookEndpoint {
  endpointId: string
  tenantId: string
  url: string
  failingSince: Date
  /** The owner the notice went to; null when the tenant has no owner to tell. */
  notifiedAddress: string | null
  noticeMessageId: string | null
}

/**
 * Disables every enabled endpoint that has failed since before `failingBefore` without a success
 * since (`disabled_reason` 'failing', the Webhooks page's banner reads it), and queues, in the same
 * transaction, a notice to the tenant's owner on the default lane: a message of that tenant, from
 * the platform's MAIL_FROM (no `from`), as any API message is accepted. The disable and its notice
 * commit together, so a notice is never lost nor sent twice.
 */
export function disableFailingWebhookEndpoints(
  db: Database,
  input: { failingBefore: Date; notice: (endpoint: { url: string; failingSince: Date }) => Notice },
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
    for (const row of rows) {
      const endpoint = { url: row.url, failingSince: new Date(row.failing_since) }
      const notified = await queueNotice(tx, row.tenant_id, input.notice(endpoint))
      disabled.push({
        endpointId: row.id,
        tenantId: row.tenant_id,
        ...endpoint,
        notifiedAddress: notified?.to ?? null,
        noticeMessageId: notified?.messageId ?? null,
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

async function queueNotice(
  tx: Transaction,
  tenantId: string,
  notice: Notice,
): Promise<{ to: string; messageId: string } | null> {
  const [owner] = await tx.execute<{ email: string }>(sql`
    select u.email from memberships m join users u on u.id = m.user_id
    where m.tenant_id = ${tenantId} and m.role = 'owner'
    order by m.created_at limit 1`)
  if (!owner) return null
  const messageId = randomUUID()
  await insertQueuedMessage(
    tx,
    {
      id: messageId,
      tenantId,
      lane: 'default',
      toAddress: owner.email,
      subject: notice.subject,
      html: notice.html,
      text: notice.text,
      template: null,
      variables: null,
      idempotencyKey: null,
      requestHash: createHash('sha256').update(`${notice.subject}\n${notice.text}`).digest('hex'),
      queuedAt: new Date(),
    },
    { v: 1, messageId, tenantId, lane: 'default', generation: 0 },
  )
  return { to: owner.email, messageId }
}
