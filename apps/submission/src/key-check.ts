import { type ApiKeyScope, apiKeyMatches, apiKeyPrefix, hashApiKey } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { findApiKeyByPrefix, type StoredApiKey } from '@fairlane/db/queries/api-keys'

/** Who a submission session logged in as: the API key's tenant and restrictions. */
export interface SubmissionUser {
  tenantId: string
  keyId: string
  keyPrefix: string
  scope: ApiKeyScope
  domain: string | null
}

export interface KeyCheck {
  /** The key's session user, or null when the password is not a live API key. */
  authenticate(password: string): Promise<SubmissionUser | null>
  /** Whether the key a session logged in with is still live (not revoked, not deleted). */
  stillValid(user: SubmissionUser): Promise<boolean>
}

/** Compared against when no key has the prefix, so an unknown key costs the same as a wrong one. */
const DUMMY_HASH = hashApiKey('fl_no-such-key')

/**
 * API keys as SMTP passwords. Rows are read by prefix and kept for `cacheMs` (2 s): a session checks
 * its key again at every MAIL FROM, so a key revoked mid-session stops sending within that time, and
 * a client sending many messages costs a key read every 2 s, not one per message. Any scope will do
 * (a `sending` key is made for this); the key's domain restriction is applied to the From.
 */
export function createKeyCheck(options: { db: Database; cacheMs?: number; now?: () => number }): KeyCheck {
  const cacheMs = options.cacheMs ?? 2_000
  const now = options.now ?? Date.now
  const cache = new Map<string, { row: StoredApiKey | null; at: number }>()
  const load = async (prefix: string): Promise<StoredApiKey | null> => {
    const cached = cache.get(prefix)
    if (cached && now() - cached.at < cacheMs) return cached.row
    const row = await findApiKeyByPrefix(options.db, { prefix })
    if (cache.size > 10_000) cache.clear()
    cache.set(prefix, { row, at: now() })
    return row
  }
  return {
    async authenticate(password) {
      const presented = password.trim()
      const row = presented.startsWith('fl_') ? await load(apiKeyPrefix(presented)) : null
      const matches = apiKeyMatches(presented, row?.keyHash ?? DUMMY_HASH)
      if (!row || !matches || row.revokedAt !== null) return null
      return {
        tenantId: row.tenantId,
        keyId: row.id,
        keyPrefix: row.prefix,
        scope: row.scope,
        domain: row.domain,
      }
    },
    async stillValid(user) {
      const row = await load(user.keyPrefix)
      return row !== null && row.id === user.keyId && row.revokedAt === null
    },
  }
}
