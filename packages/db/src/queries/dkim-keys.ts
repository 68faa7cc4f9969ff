import type { DkimKeyCiphertextStore, StoredDkimPrivateKey } from '@fairlane/core'
import { and, asc, count, eq, gt, ne } from 'drizzle-orm'
import type { Executor } from '../client'
import { dkimKeys } from '../schema'

/**
 * DKIM private keys across every tenant, for `pnpm dkim:rekey` only (re-encryption under the current
 * DKIM_ENCRYPTION_KEY): an operator's task, so these are the only dkim_keys reads without a tenant
 * filter. The signer reads one tenant's key (sender-signing.ts); the API never reads the ciphertext.
 */
export function createDkimKeyCiphertextStore(db: Executor): DkimKeyCiphertextStore {
  return {
    async listKeysNotUnder({ encryptionKeyId, afterId, limit }): Promise<StoredDkimPrivateKey[]> {
      const conditions = [ne(dkimKeys.encryptionKeyId, encryptionKeyId)]
      if (afterId !== null) conditions.push(gt(dkimKeys.id, afterId))
      return db
        .select({
          id: dkimKeys.id,
          tenantId: dkimKeys.tenantId,
          domainId: dkimKeys.domainId,
          selector: dkimKeys.selector,
          ciphertext: dkimKeys.privateKeyCiphertext,
          encryptionKeyId: dkimKeys.encryptionKeyId,
        })
        .from(dkimKeys)
        .where(and(...conditions))
        .orderBy(asc(dkimKeys.id))
        .limit(limit)
    },

    async replaceCiphertext({ tenantId, keyId, from, to }): Promise<boolean> {
      const updated = await db
        .update(dkimKeys)
        .set({ privateKeyCiphertext: to.ciphertext, encryptionKeyId: to.encryptionKeyId })
        .where(
          and(
            eq(dkimKeys.tenantId, tenantId),
            eq(dkimKeys.id, keyId),
            eq(dkimKeys.encryptionKeyId, from.encryptionKeyId),
            eq(dkimKeys.privateKeyCiphertext, from.ciphertext),
          ),
        )
        .returning({ id: dkimKeys.id })
      return updated.length === 1
    },

    async countByKeyId() {
      return db
        .select({ encryptionKeyId: dkimKeys.encryptionKeyId, keys: count() })
        .from(dkimKeys)
        .groupBy(dkimKeys.encryptionKeyId)
        .orderBy(asc(dkimKeys.encryptionKeyId))
    },
  }
}
