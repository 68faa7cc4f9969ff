import {
  type AuditOf,
  type Lane,
  SUPPRESSION_REASONS,
  type SuppressionEntry,
  type SuppressionQuery,
  type SuppressionReason,
  type SuppressionScope,
  type SuppressionStore,
  scopeForReason,
  suppressionStops,
} from '@fairlane/core'
import { and, asc, count, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { addressBounces, suppressions } from '../schema'
import { insertAuditRecord } from './tenant-audit'

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
  input: { tenantId: string; entries: readonly SuppressionRowInput[] },
): Promise<void> {
  await insertSuppressionRows(db, input)
}

interface SuppressionRowInput {
  email: string
  reason: SuppressionReason
  scope?: SuppressionScope
  messageId?: string | null
  /** Why: a bounce's diagnostic, a note typed with a manual entry. */
  detail?: string | null
  createdAt?: Date
}

/** The insert of `addSuppressionRows`, answering per row written whether it was new (else widened). */
async function insertSuppressionRows(
  db: Executor,
  input: { tenantId: string; entries: readonly SuppressionRowInput[] },
): Promise<{ inserted: boolean }[]> {
  if (input.entries.length === 0) return []
  return (
    db
      .insert(suppressions)
      .values(
        input.entries.map((entry) => ({
          tenantId: input.tenantId,
          email: entry.email.toLowerCase(),
          reason: entry.reason,
          scope: entry.scope ?? scopeForReason(entry.reason),
          messageId: entry.messageId ?? null,
          detail: entry.detail ?? null,
          ...(entry.createdAt ? { createdAt: entry.createdAt } : {}),
        })),
      )
      .onConflictDoUpdate({
        target: [suppressions.tenantId, suppressions.email],
        set: {
          reason: sql`excluded.reason`,
          scope: sql`excluded.scope`,
          messageId: sql`excluded.message_id`,
          detail: sql`excluded.detail`,
          createdAt: sql`excluded.created_at`,
        },
        setWhere: sql`${suppressions.scope} = 'marketing' and excluded.scope = 'all'`,
      })
      // A row a conflict updated has the updating transaction as xmax; a fresh insert has none.
      .returning({ inserted: sql<boolean>`(xmax = 0)` })
  )
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
  detail: suppressions.detail,
  createdAt: suppressions.createdAt,
}

/**
 * A page of the list in email order (keyset on the primary key `(tenant_id, email)`). A search for a
 * part of the address (`emailContains`, lowercased like the stored addresses) walks the tenant's
 * range of that key in order and stops at the page's end, so a common part costs a page and a rare
 * one at most the tenant's list; a trigram index would make the rare case cheap if lists grow huge.
 */
export async function listSuppressionRows(
  db: Executor,
  query: SuppressionQuery,
): Promise<SuppressionEntry[]> {
  const conditions: (SQL | undefined)[] = [eq(suppressions.tenantId, query.tenantId)]
  if (query.emailContains !== undefined && query.emailContains !== '') {
    // strpos, not LIKE: `%` and `_` in the search are plain characters.
    conditions.push(sql`strpos(${suppressions.email}, ${query.emailContains.toLowerCase()}) > 0`)
  }
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
      await insertSuppressionRows(db, input)
      const emails = input.entries.map((entry) => entry.email.toLowerCase())
      const rows = await db
        .select(entryColumns)
        .from(suppressions)
        .where(and(eq(suppressions.tenantId, input.tenantId), inArray(suppressions.email, emails)))
      const byEmail = new Map(rows.map((row) => [row.email, row]))
      return emails.flatMap((email) => byEmail.get(email) ?? [])
    },
    addMany: async (input) => {
      const rows = await insertSuppressionRows(db, input)
      const added = rows.filter((row) => row.inserted).length
      return { added, widened: rows.length - added }
    },
    remove: (input, audit) => removeSuppressionRow(db, input, audit),
  }
}

/**
 * Deletes the address's entry (of `scope` only, when given) and its soft-bounce count in one
 * transaction: a lifted address that soft-bounces again starts a new count instead of being
 * suppressed at once by the old one. Answers the entry removed, or null.
 */
export async function removeSuppressionRow(
  db: Executor,
  input: { tenantId: string; email: string; scope?: SuppressionScope },
  audit?: AuditOf<SuppressionEntry>,
): Promise<SuppressionEntry | null> {
  const email = input.email.toLowerCase()
  return db.transaction(async (tx) => {
    const conditions = [eq(suppressions.tenantId, input.tenantId), eq(suppressions.email, email)]
    if (input.scope !== undefined) conditions.push(eq(suppressions.scope, input.scope))
    const [removed] = await tx
      .delete(suppressions)
      .where(and(...conditions))
      .returning(entryColumns)
    if (!removed) return null
    await tx
      .delete(addressBounces)
      .where(and(eq(addressBounces.tenantId, input.tenantId), eq(addressBounces.email, email)))
    if (audit) await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit(removed) })
    return removed
  })
}

/** How many of the tenant's addresses are suppressed for each reason (every reason, 0 when none). */
export async function countSuppressionsByReason(
  db: Executor,
  input: { tenantId: string },
): Promise<Record<SuppressionReason, number>> {
  const rows = await db
    .select({ reason: suppressions.reason, count: count() })
    .from(suppressions)
    .where(eq(suppressions.tenantId, input.tenantId))
    .groupBy(suppressions.reason)
  const counts = Object.fromEntries(SUPPRESSION_REASONS.map((reason) => [reason, 0])) as Record<
    SuppressionReason,
    number
  >
  for (const row of rows) counts[row.reason] = row.count
  return counts
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
