import {
  type Lane,
  type SuppressionEntry,
  type SuppressionQuery,
  type SuppressionReason,
  type SuppressionScope,
  type SuppressionStore,
  scopeForReason,
  suppressionStops,
} from '@fairlane/core'
import { and, asc, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { suppressions } from '../schema'

/**
 * The scope of the tenant's suppression of an address, or null when it is not suppressed. Emails are
 * compared lowercased, as stored. `exceptCausedBy`: a suppression this message caused does not count.
 */
export async function findSuppressionScope(
  db: Executor,
  input: { tenantId: string; email: string; exceptCausedBy?: string },
): Promise<SuppressionScope | null> {
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
  const [row] = await db
    .select({ scope: suppressions.scope })
    .from(suppressions)
    .where(and(...conditions))
    .limit(1)
  return row?.scope ?? null
}

/**
 * Whether the tenant's suppression list stops mail to the address on `lane` (an unsubscribe stops
 * campaign mail only). The send reads the same in its claim; dispatch checks it too, but an address
 * can be suppressed after its campaign was dispatched.
 */
export async function isSuppressed(
  db: Executor,
  input: { tenantId: string; email: string; lane: Lane; exceptCausedBy?: string },
): Promise<boolean> {
  return suppressionStops(await findSuppressionScope(db, input), input.lane)
}

/**
 * Adds suppressions, one row per address. An address already listed keeps its entry, unless the new
 * one is wider (`all` over `marketing`): then reason, scope, causing message and date become the new
 * entry's, because from now on it is the bounce (say) that stops the mail, not the unsubscribe (which
 * the contact's `unsubscribed_at` still records). Idempotent; addresses must be distinct per call.
 */
export async function addSuppressionRows(
  db: Executor,
  input: {
    tenantId: string
    entries: readonly {
      email: string
      reason: SuppressionReason
      scope?: SuppressionScope
      messageId?: string | null
      createdAt?: Date
    }[]
  },
): Promise<void> {
  if (input.entries.length === 0) return
  await db
    .insert(suppressions)
    .values(
      input.entries.map((entry) => ({
        tenantId: input.tenantId,
        email: entry.email.toLowerCase(),
        reason: entry.reason,
        scope: entry.scope ?? scopeForReason(entry.reason),
        messageId: entry.messageId ?? null,
        ...(entry.createdAt ? { createdAt: entry.createdAt } : {}),
      })),
    )
    .onConflictDoUpdate({
      target: [suppressions.tenantId, suppressions.email],
      set: {
        reason: sql`excluded.reason`,
        scope: sql`excluded.scope`,
        messageId: sql`excluded.message_id`,
        createdAt: sql`excluded.created_at`,
      },
      setWhere: sql`${suppressions.scope} = 'marketing' and excluded.scope = 'all'`,
    })
}

/** One address (the worker's hard bounce); the scope follows from the reason unless given. */
export async function suppressAddress(
  db: Executor,
  input: {
    tenantId: string
    email: string
    reason: SuppressionReason
    scope?: SuppressionScope
    messageId?: string
  },
): Promise<void> {
  const { tenantId, ...entry } = input
  await addSuppressionRows(db, { tenantId, entries: [entry] })
}

const entryColumns = {
  email: suppressions.email,
  reason: suppressions.reason,
  scope: suppressions.scope,
  createdAt: suppressions.createdAt,
}

/** A page of the list in email order (keyset on the primary key `(tenant_id, email)`). */
export async function listSuppressionRows(
  db: Executor,
  query: SuppressionQuery,
): Promise<SuppressionEntry[]> {
  const conditions: (SQL | undefined)[] = [eq(suppressions.tenantId, query.tenantId)]
  if (query.email !== undefined) conditions.push(eq(suppressions.email, query.email.toLowerCase()))
  if (query.reason !== undefined) conditions.push(eq(suppressions.reason, query.reason))
  if (query.scope !== undefined) conditions.push(eq(suppressions.scope, query.scope))
  if (query.after !== undefined) conditions.push(gt(suppressions.email, query.after))
  return db
    .select(entryColumns)
    .from(suppressions)
    .where(and(...conditions))
    .orderBy(asc(suppressions.email))
    .limit(query.limit)
}

export function createSuppressionStore(db: Executor): SuppressionStore {
  return {
    list: (query) => listSuppressionRows(db, query),
    add: async (input) => {
      await addSuppressionRows(db, input)
      const emails = input.entries.map((entry) => entry.email.toLowerCase())
      const rows = await db
        .select(entryColumns)
        .from(suppressions)
        .where(and(eq(suppressions.tenantId, input.tenantId), inArray(suppressions.email, emails)))
      const byEmail = new Map(rows.map((row) => [row.email, row]))
      return emails.flatMap((email) => byEmail.get(email) ?? [])
    },
    remove: async (input) => {
      const conditions = [
        eq(suppressions.tenantId, input.tenantId),
        eq(suppressions.email, input.email.toLowerCase()),
      ]
      if (input.scope !== undefined) conditions.push(eq(suppressions.scope, input.scope))
      const rows = await db
        .delete(suppressions)
        .where(and(...conditions))
        .returning({ email: suppressions.email })
      return rows.length
    },
  }
}

/** The address's entry on the tenant's list, or null (the contact page shows it). */
export async function findSuppression(
  db: Executor,
  input: { tenantId: string; email: string },
): Promise<SuppressionEntry | null> {
  const [row] = await db
    .select(entryColumns)
    .from(suppressions)
    .where(and(eq(suppressions.tenantId, input.tenantId), eq(suppressions.email, input.email.toLowerCase())))
  return row ?? null
}
