import { createHash } from 'node:crypto'
import type { Config } from '@fairlane/config'
import type { LanePlan, LimitDecision, OwnLanePlan, RecipientLimiter } from '@fairlane/core/accept'
import type { RedisClient } from '@fairlane/queue'
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible'

/**
 * Request limits of the public API. Per tenant, all its keys together, and per key under it: a steady
 * rate plus a burst allowance that refills over a longer window (a client may catch up after a
 * pause, not sustain more). Per key sized so one key can drive the 200 requests/s the API benchmark
 * asks for; per tenant from its transactional plan (`rateLimitSettings`), so creating keys does not
 * multiply what a tenant may send. Per recipient: the built-in OTP and password-reset templates, so
 * a leaked key cannot flood one inbox with codes.
 */
export interface RequestRate {
  pointsPerSec: number
  burstPoints: number
  burstWindowSec: number
}

export interface RateLimitSettings {
  /** A tenant on the platform's transactional plan. */
  perTenant: RequestRate
  /**
   * A tenant with a transactional plan of its own gets `factor` × its rate and burst instead
   * (API_TENANT_RATE_FACTOR); `platform` fills what its plan leaves open. Left out: `perTenant` for all.
   */
  tenantPlans?: { factor: number; platform: LanePlan }
  perKey: RequestRate
  perRecipient: { points: number; windowSec: number }
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perTenant: { pointsPerSec: 400, burstPoints: 800, burstWindowSec: 10 },
  perKey: { pointsPerSec: 300, burstPoints: 300, burstWindowSec: 10 },
  perRecipient: { points: 5, windowSec: 60 },
}

/**
 * The web process's limits: a tenant may make `API_TENANT_RATE_FACTOR` × `TRANSACTIONAL_RATE_PER_SEC`
 * requests a second (default 2 × 200: what its critical and default lanes can each deliver), plus the
 * same multiple of `TRANSACTIONAL_BURST` per 10 s; a key never more than its tenant.
 */
export function rateLimitSettings(
  config: Pick<Config, 'API_TENANT_RATE_FACTOR' | 'TRANSACTIONAL_RATE_PER_SEC' | 'TRANSACTIONAL_BURST'>,
): RateLimitSettings {
  const perTenant = {
    pointsPerSec: config.API_TENANT_RATE_FACTOR * config.TRANSACTIONAL_RATE_PER_SEC,
    burstPoints: config.API_TENANT_RATE_FACTOR * config.TRANSACTIONAL_BURST,
    burstWindowSec: 10,
  }
  const key = DEFAULT_RATE_LIMITS.perKey
  return {
    ...DEFAULT_RATE_LIMITS,
    perTenant,
    tenantPlans: {
      factor: config.API_TENANT_RATE_FACTOR,
      platform: { ratePerSec: config.TRANSACTIONAL_RATE_PER_SEC, burst: config.TRANSACTIONAL_BURST },
    },
    perKey: {
      ...key,
      pointsPerSec: Math.min(key.pointsPerSec, perTenant.pointsPerSec),
      burstPoints: Math.min(key.burstPoints, perTenant.burstPoints),
    },
  }
}

/** Which of a call's limits refused it, as the 429's `details.limit` names it. */
export type ApiLimit = 'api-key' | 'tenant'

export type ApiCallDecision =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; limit: ApiLimit }

/** A limiter that takes longer than this counts as down: the in-memory insurance answers instead. */
const REDIS_LIMITER_TIMEOUT_MS = 200

export interface ApiLimiters {
  /** One call of a key: the key's limit, then its tenant's (so a key over its own limit spends nothing of the tenant's). */
  consumeCall(caller: {
    keyId: string
    tenantId: string
    /** The tenant's own transactional plan (null parts: the platform's); sizes its request rate. */
    transactional?: OwnLanePlan
  }): Promise<ApiCallDecision>
  recipient: RecipientLimiter
}

export interface ApiLimiterOptions {
  /** The web app's producer connection: no offline queue, so a command fails at once while Redis is away. */
  redis: RedisClient
  /** `<QUEUE_PREFIX>:rl`, so tests (and several platforms on one Redis) keep their counters apart. */
  keyPrefix: string
  settings?: RateLimitSettings
}

/**
 * Counters live in Redis so every web process shares them. When Redis is not ready (or slow), each
 * limiter falls back to a per-process in-memory limiter of the same size: the request path keeps
 * accepting mail while Redis is away, with limits that are per process instead of global.
 */
export function createApiLimiters(options: ApiLimiterOptions): ApiLimiters {
  const settings = options.settings ?? DEFAULT_RATE_LIMITS
  const insured = (name: string, points: number, duration: number) => {
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix: name, points, duration })
    const redisLimiter = new RateLimiterRedis({
      storeClient: options.redis,
      keyPrefix: `${options.keyPrefix}:${name}`,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter,
    })
    return new RLWrapperTimeouts({
      limiter: redisLimiter,
      timeoutMs: REDIS_LIMITER_TIMEOUT_MS,
      insuranceLimiter,
    })
  }
  const { perTenant, perKey, perRecipient } = settings
  const bursty = (name: string, rate: RequestRate) =>
    new BurstyRateLimiter(
      insured(name, rate.pointsPerSec, 1),
      insured(`${name}-burst`, rate.burstPoints, rate.burstWindowSec),
    )
  const keyLimiter = bursty('api-key', perKey)
  const tenantLimiter = bursty('api-tenant', perTenant)
  // One limiter per distinct request rate (a handful: the named plans and a few overrides), each with
  // its own key prefix, so a tenant whose plan changed starts on a fresh counter of its new size.
  const sized = new Map<string, BurstyRateLimiter>()
  const tenantLimiterFor = (own: OwnLanePlan | undefined): BurstyRateLimiter => {
    const plans = settings.tenantPlans
    if (!plans || !own || (own.ratePerSec === null && own.burst === null)) return tenantLimiter
    const rate = {
      pointsPerSec: plans.factor * (own.ratePerSec ?? plans.platform.ratePerSec),
      burstPoints: plans.factor * (own.burst ?? plans.platform.burst),
      burstWindowSec: perTenant.burstWindowSec,
    }
    const name = `api-tenant-${rate.pointsPerSec}-${rate.burstPoints}`
    let limiter = sized.get(name)
    if (!limiter) {
      if (sized.size >= 1_000) sized.clear()
      limiter = bursty(name, rate)
      sized.set(name, limiter)
    }
    return limiter
  }
  const recipientLimiter = insured('recipient', perRecipient.points, perRecipient.windowSec)
  return {
    async consumeCall({ keyId, tenantId, transactional }) {
      const key = await decide(keyLimiter.consume(keyId))
      if (!key.allowed) return { ...key, limit: 'api-key' }
      const tenant = await decide(tenantLimiterFor(transactional).consume(tenantId))
      if (!tenant.allowed) return { ...tenant, limit: 'tenant' }
      return { allowed: true }
    },
    recipient: {
      // Hashed: Redis holds ids, never addresses (see DESIGN.md); the tenant keeps counts apart.
      consume: ({ tenantId, address }) => decide(recipientLimiter.consume(recipientKey(tenantId, address))),
    },
  }
}

function recipientKey(tenantId: string, address: string): string {
  return createHash('sha256').update(`${tenantId}\n${address}`).digest('base64url').slice(0, 32)
}

async function decide(consumption: Promise<RateLimiterRes>): Promise<LimitDecision> {
  try {
    await consumption
    return { allowed: true }
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) }
    }
    throw rejection
  }
}
