import {
  type ApiKeyScope,
  type AuditActor,
  apiKeyActorLabel,
  apiKeyMatches,
  apiKeyPrefix,
  hashApiKey,
  type SenderChoice,
} from '@fairlane/core'
import type { TenantPlan } from '@fairlane/core/accept'
import { AppError } from '@fairlane/core/errors'
import type { Database } from '@fairlane/db'
import { findApiKeyByPrefix, touchApiKey } from '@fairlane/db/queries/api-keys'
import { tenantPlanOf } from '@fairlane/db/queries/usage'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import type { Logger } from '../logger'
import type { ApiKeyCache } from './api-key-cache'
import { bearerToken } from './bearer'

export interface ApiCaller {
  tenantId: string
  keyId: string
  /** The key's visible prefix: the audit log's actor (`API key <prefix>`). */
  keyPrefix: string
  /** What the key may call (checked by `authorizeApiCall`) and the one domain it may send from. */
  scope: ApiKeyScope
  domain: string | null
  /** The tenant's default From / Reply-To, as of the key's read (cached up to API_KEY_CACHE_TTL_MS). */
  defaultSender: SenderChoice
  /** The tenant's transactional plan and quotas, read with the key (as old as the key cache allows). */
  plan: TenantPlan
}

/** `last_used_at` is for humans ("used 3 minutes ago"): a minute's precision is plenty. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000

/** Compared against when no key has the prefix, so an unknown key costs the same as a wrong one. */
const DUMMY_HASH = hashApiKey('fl_no-such-key')

export interface ApiKeyAuthDeps {
  db: Database
  logger: Logger
  now(): Date
  /** Per process: key id → when this process last wrote `last_used_at`, so most requests skip the write. */
  lastTouched: Map<string, number>
  /** Per process: recently read key rows (see api-key-cache.ts); without it every request reads the row. */
  keyCache?: ApiKeyCache
}

/** Resolves the tenant of `Authorization: Bearer <api key>`, or throws a 401 saying what is wrong. */
export async function authenticateApiKey(request: Request, deps: ApiKeyAuthDeps): Promise<ApiCaller> {
  const presented = bearerToken(request)
  if (presented === null) {
    throw new AppError(
      'unauthorized',
      'Missing API key: send the header Authorization: Bearer <your API key>',
    )
  }
  const prefix = apiKeyPrefix(presented)
  const load = () => findApiKeyByPrefix(deps.db, { prefix })
  const stored = await (deps.keyCache ? deps.keyCache.lookup(prefix, load) : load())
  const matches = apiKeyMatches(presented, stored?.keyHash ?? DUMMY_HASH)
  if (!stored || !matches) throw new AppError('unauthorized', 'Invalid API key')
  if (stored.revokedAt !== null) throw new AppError('unauthorized', 'This API key has been revoked')
  await touch(deps, { tenantId: stored.tenantId, keyId: stored.id })
  return {
    tenantId: stored.tenantId,
    keyId: stored.id,
    keyPrefix: stored.prefix,
    scope: stored.scope,
    domain: stored.domain,
    defaultSender: { from: stored.defaultFrom, replyTo: stored.defaultReplyTo },
    plan: tenantPlanOf(stored),
  }
}

async function touch(deps: ApiKeyAuthDeps, caller: Pick<ApiCaller, 'tenantId' | 'keyId'>): Promise<void> {
  const now = deps.now()
  const last = deps.lastTouched.get(caller.keyId)
  if (last !== undefined && now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return
  deps.lastTouched.set(caller.keyId, now.getTime())
  try {
    await touchApiKey(deps.db, { ...caller, now, minIntervalMs: LAST_USED_WRITE_INTERVAL_MS })
  } catch (error) {
    // Bookkeeping only: a failed write must not turn an authenticated request into an error.
    deps.logger.warn({ err: error, keyId: caller.keyId }, 'could not record API key use')
  }
}

/** The audit log's who for an `/api/v1` call: `API key <prefix>` and the client address. */
export function apiAuditActor(request: Request, caller: Pick<ApiCaller, 'keyPrefix'>): AuditActor {
  return {
    userId: null,
    label: apiKeyActorLabel(caller.keyPrefix),
    ipAddress: request.headers.get(CLIENT_ADDRESS_HEADER),
  }
}
