import type { StoredApiKey } from '@fairlane/db/queries/api-keys'

/**
 * How long a web process reuses an API key row it read. Every `/api/v1` call starts with this lookup,
 * so the cache saves one PostgreSQL round trip per request. The hash and the revocation are still
 * checked on every request against the cached row, so a key revoked before it was read is refused at
 * once; a revocation made after a process read the key takes effect there within this TTL (5 s).
 */
export const API_KEY_CACHE_TTL_MS = 5_000

/** Enough for every active key of a large installation; past it the oldest entries go first. */
const MAX_ENTRIES = 10_000

export interface ApiKeyCache {
  /**
   * The row for `prefix`, from the cache when read within the TTL, else from `load`. Concurrent misses
   * for one prefix share one load. A miss (no such key) and a failed load are never remembered, so a
   * key created a moment ago works at once and an outage is not cached.
   */
  lookup(prefix: string, load: () => Promise<StoredApiKey | null>): Promise<StoredApiKey | null>
}

export function createApiKeyCache(
  options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): ApiKeyCache {
  const ttlMs = options.ttlMs ?? API_KEY_CACHE_TTL_MS
  const maxEntries = options.maxEntries ?? MAX_ENTRIES
  const now = options.now ?? Date.now
  const entries = new Map<string, { loaded: Promise<StoredApiKey | null>; expiresAt: number }>()

  return {
    lookup(prefix, load) {
      const at = now()
      const cached = entries.get(prefix)
      if (cached && cached.expiresAt > at) return cached.loaded
      if (cached) entries.delete(prefix)
      const loaded = load()
      const entry = { loaded, expiresAt: at + ttlMs }
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(prefix, entry)
      const forget = () => {
        if (entries.get(prefix) === entry) entries.delete(prefix)
      }
      loaded.then((row) => {
        if (row === null) forget()
      }, forget)
      return loaded
    },
  }
}
