import type { KeyObject } from 'node:crypto'
import type { EncryptedPrivateKey, KeyEncryptionKey } from '@fairlane/core'
import { loadSigningKey } from '@fairlane/core'
import {
  resolveSenderSigning,
  type SenderSigner,
  type SenderSigning,
  type SigningDomain,
} from '@fairlane/core/delivery'

export interface SenderSignerOptions {
  /** The domain with its active key's ciphertext (`findSigningDomain`). */
  load: (input: { tenantId: string; domainId: string }) => Promise<SigningDomain | undefined>
  /** DKIM_ENCRYPTION_KEY as parsed: any listed key decrypts. */
  keys: readonly KeyEncryptionKey[]
  /** How long an answer is reused: a domain that failed holds its mail within this. */
  ttlMs?: number
  /** Domains remembered at most; the oldest answer makes room. */
  maxEntries?: number
  now?: () => number
  /** Decrypts and parses a stored key; tests count the calls. */
  loadKey?: (stored: EncryptedPrivateKey, keys: readonly KeyEncryptionKey[]) => KeyObject
}

export const SENDER_SIGNER_TTL_MS = 30_000
const DEFAULT_MAX_ENTRIES = 1_000

interface Entry {
  answer: Promise<SenderSigning>
  expiresAt: number
}

/**
 * The worker's `SenderSigner`: per sending domain, one read, one decryption and one parse of its key,
 * reused for `ttlMs` by every message of the domain (parsing a PEM per signature would cost about
 * 0.6 ms of CPU per message). Hold answers are cached the same way, so a failed domain with a queue
 * of mail costs one read per interval, not one per message. Concurrent sends of one domain share the
 * one lookup in flight; a lookup that throws (database away) is not remembered.
 */
export function createSenderSigner(options: SenderSignerOptions): SenderSigner {
  const ttlMs = options.ttlMs ?? SENDER_SIGNER_TTL_MS
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  const now = options.now ?? Date.now
  const loadKey = options.loadKey ?? loadSigningKey
  const entries = new Map<string, Entry>()

  return {
    signingFor(input) {
      const at = now()
      // The tenant is part of the key: a domain id is only ever answered for its own tenant.
      const key = `${input.tenantId}/${input.domainId}`
      const cached = entries.get(key)
      if (cached && cached.expiresAt > at) return cached.answer
      entries.delete(key)
      const answer = options
        .load(input)
        .then((domain) => resolveSenderSigning(domain, (stored) => loadKey(stored, options.keys)))
      entries.set(key, { answer, expiresAt: at + ttlMs })
      answer.catch(() => {
        if (entries.get(key)?.answer === answer) entries.delete(key)
      })
      // Map order is insertion order: the first key is the oldest answer.
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        entries.delete(oldest)
      }
      return answer
    },
    forget(input) {
      entries.delete(`${input.tenantId}/${input.domainId}`)
    },
  }
}
