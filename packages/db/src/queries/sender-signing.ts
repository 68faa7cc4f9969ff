import type { SigningDomain } from '@fairlane/core/delivery'
import { and, eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { dkimKeys, type StoredDkimRotation, sendingDomains } from '../schema'

/**
 * A sending domain with the stored key of its active DKIM selector, in one statement: what the
 * worker needs to decide whether the domain's mail may be signed and sent (`resolveSenderSigning`).
 */
export async function findSigningDomain(
  db: Executor,
  query: { tenantId: string; domainId: string },
): Promise<SigningDomain | undefined> {
  const [row] = await db
    .select({
      name: sendingDomains.name,
      status: sendingDomains.status,
      returnPathLabel: sendingDomains.returnPathLabel,
      dkim: sendingDomains.dkim,
      keySelector: dkimKeys.selector,
      ciphertext: dkimKeys.privateKeyCiphertext,
      encryptionKeyId: dkimKeys.encryptionKeyId,
    })
    .from(sendingDomains)
    .leftJoin(
      dkimKeys,
      and(
        eq(dkimKeys.domainId, sendingDomains.id),
        eq(dkimKeys.tenantId, sendingDomains.tenantId),
        eq(dkimKeys.selector, sql`${sendingDomains.dkim} -> 'active' ->> 'selector'`),
      ),
    )
    .where(and(eq(sendingDomains.id, query.domainId), eq(sendingDomains.tenantId, query.tenantId)))
  if (!row) return undefined
  return {
    name: row.name,
    status: row.status,
    returnPathLabel: row.returnPathLabel,
    dkim: rotationState(row.dkim),
    activeKey:
      row.keySelector !== null && row.ciphertext !== null && row.encryptionKeyId !== null
        ? { selector: row.keySelector, ciphertext: row.ciphertext, encryptionKeyId: row.encryptionKeyId }
        : null,
  }
}

/** The stored rotation state with its instants as dates again. */
function rotationState(stored: StoredDkimRotation): SigningDomain['dkim'] {
  const key = (entry: { selector: string; createdAt: string } | null) =>
    entry === null ? null : { selector: entry.selector, createdAt: new Date(entry.createdAt) }
  return {
    active: key(stored.active),
    pending: key(stored.pending),
    retired: stored.retired.map((entry) => ({
      selector: entry.selector,
      retiredAt: new Date(entry.retiredAt),
      removableAt: new Date(entry.removableAt),
    })),
    activeFailedChecks: stored.activeFailedChecks,
  }
}
