import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Transaction } from '../client'
import { insertQueuedMessage } from './accept-message'

/**
 * Notices from the platform to a tenant's people: account mail, each a queued message of the
 * platform tenant on the default lane (Fairlane's own, from MAIL_FROM; not counted against the
 * tenant's plan), written in the caller's transaction so the notice commits with what it tells of.
 */

export interface Notice {
  subject: string
  text: string
  html: string
}

/** One notice per owner or admin of `tenantId`, each a queued message of the platform tenant. */
export async function queueTenantNotices(
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
