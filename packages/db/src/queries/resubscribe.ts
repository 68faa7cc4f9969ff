import { type ResubscribeStore, TENANT_AUDIT_ACTIONS } from '@fairlane/core'
import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '../client'
import { contacts, suppressions } from '../schema'
import { findSuppressionScope } from './suppressions'
import { insertTenantAuditEntry } from './tenant-audit'

export const RESUBSCRIBE_ACTION = TENANT_AUDIT_ACTIONS.contactResubscribe

/**
 * The contact page's "Resubscribe (on their request)". The contact row is locked first (`for
 * update`), so a concurrent unsubscribe link click either lands before (and is undone here, which
 * the person asked for) or after (and wins); the audit entry commits with the change or not at all.
 */
export function createResubscribeStore(db: Database): ResubscribeStore {
  return {
    resubscribe: (input) =>
      db.transaction(async (tx) => {
        const [contact] = await tx
          .select({ email: contacts.email, unsubscribedAt: contacts.unsubscribedAt })
          .from(contacts)
          .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
          .for('update')
        if (!contact) return { kind: 'not-found' }
        const lifted = await tx
          .delete(suppressions)
          .where(
            and(
              eq(suppressions.tenantId, input.tenantId),
              eq(suppressions.email, contact.email),
              eq(suppressions.scope, 'marketing'),
            ),
          )
          .returning({ reason: suppressions.reason, createdAt: suppressions.createdAt })
        if (contact.unsubscribedAt === null && lifted.length === 0) return { kind: 'already-subscribed' }
        await tx
          .update(contacts)
          .set({ unsubscribedAt: null, updatedAt: sql`now()` })
          .where(and(eq(contacts.tenantId, input.tenantId), eq(contacts.id, input.contactId)))
        await insertTenantAuditEntry(tx, {
          tenantId: input.tenantId,
          entry: {
            actorUserId: input.actor.userId,
            actor: input.actor.email,
            action: RESUBSCRIBE_ACTION,
            targetType: 'contact',
            targetId: input.contactId,
            reason: input.note,
            details: {
              email: contact.email,
              confirmedPersonAsked: true,
              unsubscribedAt: contact.unsubscribedAt?.toISOString() ?? null,
              liftedSuppression: lifted[0]
                ? { reason: lifted[0].reason, createdAt: lifted[0].createdAt.toISOString() }
                : null,
            },
          },
        })
        const remainingScope = await findSuppressionScope(tx, {
          tenantId: input.tenantId,
          email: contact.email,
        })
        return { kind: 'resubscribed', email: contact.email, remainingScope }
      }),
  }
}
