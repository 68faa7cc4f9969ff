import {
  decryptPrivateKey,
  type EncryptedPrivateKey,
  encryptPrivateKey,
  type KeyEncryptionKey,
} from './dkim-keys'

/** One stored DKIM private key, as the re-encryption reads it (every tenant's: an operator's task). */
export interface StoredDkimPrivateKey extends EncryptedPrivateKey {
  id: string
  tenantId: string
  domainId: string
  selector: string
}

export interface DkimKeyCiphertextStore {
  /** Up to `limit` keys not under `encryptionKeyId`, in id order after `afterId`. */
  listKeysNotUnder(input: {
    encryptionKeyId: string
    afterId: string | null
    limit: number
  }): Promise<StoredDkimPrivateKey[]>
  /**
   * Replaces one key's ciphertext, only while it is still `from` (false otherwise: the key was
   * deleted or re-encrypted meanwhile), so a concurrent run or a domain's deletion is never undone.
   */
  replaceCiphertext(input: {
    tenantId: string
    keyId: string
    from: EncryptedPrivateKey
    to: EncryptedPrivateKey
  }): Promise<boolean>
  /** How many keys each key-encryption key id holds now. */
  countByKeyId(): Promise<Array<{ encryptionKeyId: string; keys: number }>>
}

export interface RekeyDkimKeysResult {
  /** The key id every re-encrypted key is now under: DKIM_ENCRYPTION_KEY's first. */
  currentKeyId: string
  rekeyed: number
  /** Changed by someone else between the read and the write (deleted, or re-encrypted already). */
  skipped: number
  /** Keys that could not be decrypted: their key id is not configured, or the ciphertext is damaged. */
  failed: Array<{ keyId: string; domainId: string; selector: string; reason: string }>
  /** After the run: keys per key id. Only `currentKeyId` listed means the others may be removed. */
  keysByKeyId: Array<{ encryptionKeyId: string; keys: number }>
}

/** Keys read and rewritten per round: each is one small UPDATE, so a batch is quick. */
export const REKEY_BATCH_SIZE = 100

/**
 * Re-encrypts every stored DKIM private key under the current key-encryption key (the first of
 * `keys`), so a retired key can be removed from DKIM_ENCRYPTION_KEY: until then, a key encrypted
 * under it could no longer be decrypted and its domain could not sign. The private keys themselves do
 * not change, so no DNS record does. Safe to run while workers sign and domains rotate (each write is a
 * compare-and-set on the old ciphertext), and to run again (keys already current are not read).
 */
export async function rekeyDkimKeys(deps: {
  store: DkimKeyCiphertextStore
  keys: readonly KeyEncryptionKey[]
  batchSize?: number
}): Promise<RekeyDkimKeysResult> {
  const current = deps.keys[0]
  if (!current) throw new RangeError('no DKIM encryption key is configured')
  const result: RekeyDkimKeysResult = {
    currentKeyId: current.kid,
    rekeyed: 0,
    skipped: 0,
    failed: [],
    keysByKeyId: [],
  }
  const limit = deps.batchSize ?? REKEY_BATCH_SIZE
  let afterId: string | null = null
  for (;;) {
    const batch = await deps.store.listKeysNotUnder({ encryptionKeyId: current.kid, afterId, limit })
    for (const stored of batch) {
      let to: EncryptedPrivateKey
      try {
        to = encryptPrivateKey(decryptPrivateKey(stored, deps.keys), deps.keys)
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        result.failed.push({ keyId: stored.id, domainId: stored.domainId, selector: stored.selector, reason })
        continue
      }
      const from = { ciphertext: stored.ciphertext, encryptionKeyId: stored.encryptionKeyId }
      const replaced = await deps.store.replaceCiphertext({
        tenantId: stored.tenantId,
        keyId: stored.id,
        from,
        to,
      })
      if (replaced) result.rekeyed += 1
      else result.skipped += 1
    }
    const last = batch.at(-1)
    if (batch.length < limit || last === undefined) break
    afterId = last.id
  }
  result.keysByKeyId = await deps.store.countByKeyId()
  return result
}
