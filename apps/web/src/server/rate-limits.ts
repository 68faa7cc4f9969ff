import { createHash } from 'node:crypto'
import type { LimitDecision, RecipientLimiter } from '@fairlane/core/accept'
import type { Redis } from 'ioredis'
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible'

/**
 * Request limits of the public API. Per key: a steady rate plus a burst allowance that refills over
 * a longer window (a client may catch up after a pause, not sustain more). Sized so one key can
 * drive the 200 requests/s the API benchmark asks for. Per recipient: the built-in OTP and
 * password-reset templates, so a leaked key cannot flood one inbox with codes.
 */
export interface RateLimitSettings {
  perKey: { pointsPerSec: number; burstPoints: number; burstWindowSec: number }
  perRecipient: { points: number; windowSec: number }
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perKey: { pointsPerSec: 300, burstPoints: 300, burstWindowSec: 10 },
  perRecipient: { points: 5, windowSec: 60 },
}

/** A limiter that takes longer than this counts as down: the in-memory insurance answers instead. */
const REDIS_LIMITER_TIMEOUT_MS = 200

export interface ApiLimiters {
  consumeKey(keyId: string): Promise<LimitDecision>
  recipient: RecipientLimiter
}

export interface ApiLimiterOptions {
  /** The web app's producer connection: no offline queue, so a command fails at once while Redis is away. */
  redis: Redis
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
  const { perKey, perRecipient } = settings
  const keyLimiter = new BurstyRateLimiter(
    insured('api-key', perKey.pointsPerSec, 1),
    insured('api-key-burst', perKey.burstPoints, perKey.burstWindowSec),
  )
  const recipientLimiter = insured('recipient', perRecipient.points, perRecipient.windowSec)
  return {
    consumeKey: (keyId) => decide(keyLimiter.consume(keyId)),
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
