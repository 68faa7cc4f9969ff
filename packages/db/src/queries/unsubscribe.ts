import type { UnsubscribeStore, UnsubscribeTarget } from '@fairlane/core'
import { and, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { contacts, tenants } from '../schema'
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
 * the person's sign-in codes and password resets still go.
 */
export function createUnsubscribeStore(db: Database): UnsubscribeStore {
  return {
    findTarget: (query) => findTarget(db, query),
    unsubscribe: (input) =>
      db.transaction(async (tx) => {
        const [row] = await tx
          .update(contacts)
          .set({
            unsubscribedAt: sql`coalesce(${contacts.unsubscribedAt}, ${input.now.toISOString()}::timestamptz)`,
            updatedAt: input.now,
          })
          .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
          .returning({ email: contacts.email })
        if (!row) return null
        await suppressAddress(tx, { tenantId: input.tenantId, email: row.email, reason: 'unsubscribe' })
        return findTarget(tx, input)
      }),
  }
}
