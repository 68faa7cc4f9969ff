import type { SigningDomain } from '@fairlane/core/delivery'
import { and, eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { dkimKeys, sendingDomains } from '../schema'
import { fromStoredDkim } from './sending-domains'

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
    dkim: fromStoredDkim(row.dkim),
    activeKey:
      row.keySelector !== null && row.ciphertext !== null && row.encryptionKeyId !== null
        ? { selector: row.keySelector, ciphertext: row.ciphertext, encryptionKeyId: row.encryptionKeyId }
        : null,
  }
}
