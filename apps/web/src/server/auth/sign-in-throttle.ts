import type { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'

/**
 * Failed sign-ins per email address: better-auth's own rate limit guards only its HTTP endpoints,
 * and the sign-in form calls it as a server action, so password guessing is limited here instead.
 * Counted in Redis so every web process shares the count; per process in memory while Redis is away.
 */
export const FAILED_SIGN_INS_ALLOWED = 10
export const FAILED_SIGN_IN_WINDOW_SEC = 15 * 60

export interface SignInThrottle {
  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSec(email: string): Promise<number>
  recordFailure(email: string): Promise<void>
}

const built = new WeakMap<Redis, SignInThrottle>()

/** One throttle per Redis connection, made on first use (never on import). */
export function signInThrottle(redis: Redis, keyPrefix: string): SignInThrottle {
  let throttle = built.get(redis)
  if (!throttle) {
    throttle = createSignInThrottle(redis, keyPrefix)
    built.set(redis, throttle)
  }
  return throttle
}

function createSignInThrottle(redis: Redis, keyPrefix: string): SignInThrottle {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${keyPrefix}:sign-in`,
    points: FAILED_SIGN_INS_ALLOWED,
    duration: FAILED_SIGN_IN_WINDOW_SEC,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix: 'sign-in',
      points: FAILED_SIGN_INS_ALLOWED,
      duration: FAILED_SIGN_IN_WINDOW_SEC,
    }),
  })
  const key = (email: string) => email.trim().toLowerCase()
  return {
    async retryAfterSec(email) {
      const state = await limiter.get(key(email))
      if (!state || state.consumedPoints < FAILED_SIGN_INS_ALLOWED) return 0
      return Math.max(1, Math.ceil(state.msBeforeNext / 1000))
    },
    async recordFailure(email) {
      try {
        await limiter.consume(key(email))
      } catch (error) {
        // Over the limit already: the next attempt is refused by retryAfterSec.
        if (!(error instanceof RateLimiterRes)) throw error
      }
    },
  }
}
