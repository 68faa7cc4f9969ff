import type {
  AuditRecord,
  DefaultSenderStore,
  SenderChoice,
  SenderDomain,
  SenderDomains,
} from '@fairlane/core'
import { and, asc, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { sendingDomains, tenants } from '../schema'
import { insertAuditRecord } from './tenant-audit'

/**
 * Sender resolution's reads and the tenant default sender's write. The domain lookup is the unique
 * (tenant_id, name) index: one index probe, the only query a `from` adds to accepting a message.
 */

export async function findSenderDomain(
  db: Executor,
  query: { tenantId: string; name: string },
): Promise<SenderDomain | null> {
  const [row] = await db
    .select({ id: sendingDomains.id, status: sendingDomains.status })
    .from(sendingDomains)
    .where(and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.name, query.name)))
  return row ?? null
}

/** The tenant's verified domain names, for the hint beside a From field. */
export async function listVerifiedDomainNames(db: Executor, query: { tenantId: string }): Promise<string[]> {
  const rows = await db
    .select({ name: sendingDomains.name })
    .from(sendingDomains)
    .where(and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.status, 'verified')))
    .orderBy(asc(sendingDomains.name))
  return rows.map((row) => row.name)
}

export async function findDefaultSender(db: Executor, query: { tenantId: string }): Promise<SenderChoice> {
  const [row] = await db
    .select({ from: tenants.defaultFrom, replyTo: tenants.defaultReplyTo })
    .from(tenants)
    .where(eq(tenants.id, query.tenantId))
  return row ?? { from: null, replyTo: null }
}

/** Sets the tenant's default sender, and writes `audit` in the same transaction when given. */
export async function updateDefaultSender(
  db: Executor,
  input: { tenantId: string } & SenderChoice,
  audit?: AuditRecord,
): Promise<void> {
  const update = (tx: Executor) =>
    tx
      .update(tenants)
      .set({ defaultFrom: input.from, defaultReplyTo: input.replyTo, updatedAt: new Date() })
      .where(eq(tenants.id, input.tenantId))
  if (!audit) {
    await update(db)
    return
  }
  await db.transaction(async (tx) => {
    await update(tx)
    await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit })
  })
}

export function createSenderDomains(db: Executor): SenderDomains {
  return { findDomain: (query) => findSenderDomain(db, query) }
}

export function createDefaultSenderStore(db: Executor): DefaultSenderStore {
  return { updateDefaultSender: (input, audit) => updateDefaultSender(db, input, audit) }
}
