import type { UnsubscribeSource, UnsubscribeStore, UnsubscribeTarget } from '@fairlane/core'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { contacts, messageEvents, messages, tenants } from '../schema'
import { suppressAddress } from './suppressions'

async function findTarget(
  db: Executor,
  query: { tenantId: string; contactId: string },
): Promise<UnsubscribeTarget | null> {
  const [row] = await db
    .select({ tenantName: tenants.name, email: contacts.email, unsubscribedAt: contacts.unsubscribedAt })
    .from(contacts)
    .innerJoin(tenants, eq(tenants.id, contacts.tenantId))
    .where(and(eq(contacts.tenantId, query.tenantId), eq(contacts.id, query.contactId)))
  return row ?? null
}

/**
 * The unsubscribe pages' store. Unsubscribing sets `unsubscribed_at` (the first time wins) and adds
 * an `unsubscribe` suppression scoped to marketing in the same transaction: the audience query leaves
 * the contact out, and the send-time check also stops campaign mail already dispatched to it, while
 * the person's sign-in codes and password resets still go. The first time, the message whose link
 * was used (the campaign's one to the contact) gets its `unsubscribed` event in that transaction too.
 */
export function createUnsubscribeStore(db: Database): UnsubscribeStore {
  return {
    findTarget: (query) => findTarget(db, query),
    unsubscribe: (input) =>
      db.transaction(async (tx) => {
        // Only a contact still subscribed is changed: the row lock makes one of two concurrent
        // clicks the first, and only the first writes the event.
        const [first] = await tx
          .update(contacts)
          .set({ unsubscribedAt: input.now, updatedAt: input.now })
          .where(
            and(
              eq(contacts.tenantId, input.tenantId),
              eq(contacts.id, input.contactId),
              isNull(contacts.unsubscribedAt),
            ),
          )
          .returning({ id: contacts.id })
        const target = await findTarget(tx, input)
        if (!target) return null
        await suppressAddress(tx, { tenantId: input.tenantId, email: target.email, reason: 'unsubscribe' })
        if (first) await recordUnsubscribed(tx, input)
        return target
      }),
  }
}

async function recordUnsubscribed(
  tx: Executor,
  input: { tenantId: string; contactId: string; campaignId: string; source: UnsubscribeSource },
): Promise<void> {
  await tx.execute(sql`
    insert into ${messageEvents} (tenant_id, message_id, type, detail)
    select m.tenant_id, m.id, 'unsubscribed', ${JSON.stringify({ source: input.source })}::jsonb
    from ${messages} m
    where m.tenant_id = ${input.tenantId} and m.campaign_id = ${input.campaignId}
      and m.contact_id = ${input.contactId}`)
}
