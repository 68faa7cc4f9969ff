import {
  type ApiKeyScope,
  checkKeyScope,
  type DnsLookup,
  type DomainSettings,
  type HostAddressLookup,
  type KeyEncryptionKey,
  type WebhookSettings,
} from '@fairlane/core'
import type { Clock, MessageRenderer, PlanAdmissionDeps } from '@fairlane/core/accept'
import { AppError } from '@fairlane/core/errors'
import type { Database } from '@fairlane/db'
import { type ApiCaller, authenticateApiKey } from '../../auth/api-key'
import type { ApiKeyCache } from '../../auth/api-key-cache'
import type { Logger } from '../../logger'
import type { ApiLimiters } from '../../rate-limits'
import type { TenantLimits } from '../../tenant-limits'

/** What the `/api/v1` handlers need; built once by the container, or by a test from its own database. */
export interface ApiDeps {
  /**
   * The scope the route being answered needs, set by the route table (`routes.ts`, `route()`) for
   * each `/api/v1` route; absent (a handler called some other way) means `full`.
   */
  requiredScope?: ApiKeyScope
  db: Database
  logger: Logger
  limiters: ApiLimiters
  /** Per-tenant caps (invitations, templates, domains; see `tenantLimitsOf`). */
  tenantLimits: TenantLimits
  clock: Clock
  /** APP_URL: links the app mails (invitations) point under it. */
  appUrl: string
  /** See `ApiKeyAuthDeps.lastTouched`. */
  lastTouched: Map<string, number>
  /** See `ApiKeyAuthDeps.keyCache`. */
  keyCache?: ApiKeyCache
  /**
   * The tenants' lane plans and accept buckets (ACCEPT_HORIZON_MS): `POST /api/v1/messages` refuses a
   * tenant past its plan's horizon. Left out, nothing is refused for the plan.
   */
  planAdmission?: PlanAdmissionDeps
  /** Built once per process (it caches tenant names for built-in mail); a test may leave it out. */
  renderer?: MessageRenderer
  /** Sending domains: DNS lookups (DNS_SERVERS), RETURN_PATH_HOST, DKIM_ENCRYPTION_KEY. */
  domains: {
    dns: DnsLookup
    settings: DomainSettings
    encryptionKeys: readonly KeyEncryptionKey[]
  }
  /** Webhook endpoints: the URL check's DNS lookup (DNS_SERVERS) and WEBHOOK_ALLOW_PRIVATE. */
  webhooks: {
    hosts: HostAddressLookup
    settings: WebhookSettings
  }
}

/**
 * Every `/api/v1` call starts here: the API key names the tenant; a key whose scope does not cover
 * the route is refused (403 naming the scope); then the key's request rate and the tenant's (all its
 * keys together) apply, and a 429 names the one that refused. `beforeLimits` (a route's own refusal
 * that spends nothing, as the plan's) runs first, so a call it refuses costs no limiter points.
 */
export async function authorizeApiCall(
  request: Request,
  deps: ApiDeps,
  beforeLimits?: (caller: ApiCaller) => Promise<void>,
): Promise<ApiCaller> {
  const caller = await authenticateApiKey(request, {
    db: deps.db,
    logger: deps.logger,
    now: () => deps.clock.now(),
    lastTouched: deps.lastTouched,
    keyCache: deps.keyCache,
  })
  checkKeyScope(caller.scope, deps.requiredScope ?? 'full')
  if (beforeLimits) await beforeLimits(caller)
  const decision = await deps.limiters.consumeCall({ ...caller, transactional: caller.plan.transactional })
  if (!decision.allowed) {
    const message =
      decision.limit === 'tenant'
        ? 'Too many requests for this tenant (all its API keys together)'
        : 'Too many requests for this API key'
    throw new AppError('rate_limited', message, {
      retryAfterSeconds: decision.retryAfterSeconds,
      limit: decision.limit,
    })
  }
  return caller
}
