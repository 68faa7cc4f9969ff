import type { UnsubscribeStore, UnsubscribeTarget } from '@fairlane/core'
import { and, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { contacts, suppressions, tenants } from '../schema'

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
 * an `unsubscribe` suppression in the same transaction: the audience query leaves the contact out,
 * and the send-time suppression check also stops mail already dispatched to it.
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
        await tx
          .insert(suppressions)
          .values({ tenantId: input.tenantId, email: row.email, reason: 'unsubscribe' })
          .onConflictDoNothing()
        return findTarget(tx, input)
      }),
  }
}
