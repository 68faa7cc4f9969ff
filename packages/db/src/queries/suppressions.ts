import type { SuppressionReason } from '@fairlane/core'
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { suppressions } from '../schema'

/**
 * A tenant's suppression list, checked at send time (dispatch checks it too, but an address can be
 * suppressed after its campaign was dispatched). Emails are compared lowercased, as stored.
 */
export async function isSuppressed(
  db: Executor,
  input: { tenantId: string; email: string; exceptCausedBy?: string },
): Promise<boolean> {
  const conditions = [
    eq(suppressions.tenantId, input.tenantId),
    eq(suppressions.email, input.email.toLowerCase()),
  ]
  if (input.exceptCausedBy !== undefined) {
    conditions.push(
      or(isNull(suppressions.messageId), sql`${suppressions.messageId} <> ${input.exceptCausedBy}`) ??
        sql`true`,
    )
  }
  const rows = await db
    .select({ found: sql<number>`1` })
    .from(suppressions)
    .where(and(...conditions))
    .limit(1)
  return rows.length > 0
}

/** Idempotent: an address already suppressed keeps its first reason and causing message. */
export async function suppressAddress(
  db: Executor,
  input: { tenantId: string; email: string; reason: SuppressionReason; messageId?: string },
): Promise<void> {
  await db
    .insert(suppressions)
    .values({
      tenantId: input.tenantId,
      email: input.email.toLowerCase(),
      reason: input.reason,
      messageId: input.messageId ?? null,
    })
    .onConflictDoNothing()
}
