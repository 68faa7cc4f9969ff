import { createHash } from 'node:crypto'
import type { RedisClient } from '@fairlane/queue'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { Logger } from '../logger'
import { decideLockout, LOCKOUT_SCRIPT, type LockoutPolicy, type LockoutState } from './lockout'

/**
 * The one throttle every sign-in and sign-up passes, whichever way it arrives (better-auth's HTTP
 * routes or a server action's `auth.api` call: see auth-throttle-hooks.ts). Three limits:
 *  - per (email address, client address): the growing lockout of lockout.ts;
 *  - per client address: sign-in attempts, across every email address (a successful one is given
 *    back), so one client cannot walk through a list of addresses;
 *  - per client address: sign-ups.
 * "Client address" is the throttle unit of `x-fairlane-client-ip` (client-address.ts): an IPv4 address
 * or an IPv6 /64. Counters live in Redis so every web process shares them; while Redis is away each
 * process keeps its own in memory. Redis holds hashes, never an email address.
 */
export interface AuthThrottlePolicy {
  signInLockout: LockoutPolicy
  signInsPerClient: { points: number; windowSec: number }
  signUpsPerClient: { points: number; windowSec: number }
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottlePolicy = {
  signInLockout: {
    freeAttempts: 5,
    firstLockMs: 60_000,
    longestLockMs: 60 * 60_000,
    memoryMs: 24 * 60 * 60_000,
  },
  // An office behind one NAT address shares this: generous, but far below what guessing needs.
  signInsPerClient: { points: 50, windowSec: 15 * 60 },
  signUpsPerClient: { points: 10, windowSec: 60 * 60 },
}

/** Which limit refused: the (address, client) lockout, the client's sign-in cap, or its sign-up cap. */
export type AuthLimit = 'address' | 'client' | 'sign-up'

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSec: number; limit: AuthLimit }

export interface SignInAttempt {
  email: string
  /** The client's throttle unit (`throttleUnitOf`). */
  client: string
}

export interface AuthThrottle {
  /** Counts an attempt before the password is checked; refused: do not check it. */
  beginSignIn(attempt: SignInAttempt): Promise<ThrottleDecision>
  /** The attempt signed in: the pair's lockout is forgotten and the client's attempt given back. */
  signInSucceeded(attempt: SignInAttempt): Promise<void>
  beginSignUp(client: string): Promise<ThrottleDecision>
}

export interface AuthThrottleOptions {
  redis: RedisClient
  /** `<QUEUE_PREFIX>:rl`, as the API's limiters. */
  keyPrefix: string
  logger: Logger
  policy?: AuthThrottlePolicy
}

const LOCKOUT_COMMAND = 'fairlaneSignInLockout'
/** In-memory lockouts kept while Redis is away; past it the ones that expired are dropped first. */
const MEMORY_LOCKOUTS_MAX = 100_000

interface LockoutCommands {
  [LOCKOUT_COMMAND](key: string, ...args: number[]): Promise<[number, number]>
}

export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const policy = options.policy ?? DEFAULT_AUTH_THROTTLE
  const { redis, keyPrefix, logger } = options
  redis.defineCommand(LOCKOUT_COMMAND, { numberOfKeys: 1, lua: LOCKOUT_SCRIPT })
  const commands = redis as RedisClient & LockoutCommands
  const perClient = (name: string, limit: { points: number; windowSec: number }) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${keyPrefix}:auth:${name}`,
      points: limit.points,
      duration: limit.windowSec,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({
        keyPrefix: `auth:${name}`,
        points: limit.points,
        duration: limit.windowSec,
      }),
    })
  const signInClients = perClient('sign-in-client', policy.signInsPerClient)
  const signUpClients = perClient('sign-up-client', policy.signUpsPerClient)
  const memoryLockouts = new Map<string, { state: LockoutState; expiresAtMs: number }>()
  const lockoutKey = (attempt: SignInAttempt) =>
    `${keyPrefix}:auth:lockout:${digest(`${attempt.email.trim().toLowerCase()}\n${attempt.client}`)}`

  async function takeLockout(key: string): Promise<ThrottleDecision> {
    let allowed: number
    let ms: number
    try {
      ;[allowed, ms] = await commands[LOCKOUT_COMMAND](
        key,
        policy.signInLockout.freeAttempts,
        policy.signInLockout.firstLockMs,
        policy.signInLockout.longestLockMs,
        policy.signInLockout.memoryMs,
      )
    } catch (error) {
      logger.warn({ err: error }, 'sign-in lockout: RedisClient did not answer, counting in this process')
      return takeMemoryLockout(key)
    }
    return allowed === 1 ? { allowed: true } : refusal(ms, 'address')
  }

  function takeMemoryLockout(key: string): ThrottleDecision {
    const now = Date.now()
    if (memoryLockouts.size >= MEMORY_LOCKOUTS_MAX) {
      for (const [stored, entry] of memoryLockouts)
        if (entry.expiresAtMs <= now) memoryLockouts.delete(stored)
      if (memoryLockouts.size >= MEMORY_LOCKOUTS_MAX) memoryLockouts.clear()
    }
    const entry = memoryLockouts.get(key)
    const current = entry && entry.expiresAtMs > now ? entry.state : null
    const decision = decideLockout(current, now, policy.signInLockout)
    if (!decision.allowed) return refusal(decision.waitMs, 'address')
    memoryLockouts.set(key, { state: decision.next, expiresAtMs: decision.expiresAtMs })
    return { allowed: true }
  }

  return {
    async beginSignIn(attempt) {
      // Every attempt counts against the client, refused ones too: hammering a locked address costs.
      const client = await consume(signInClients, digest(attempt.client), 'client')
      if (!client.allowed) return client
      return takeLockout(lockoutKey(attempt))
    },
    async signInSucceeded(attempt) {
      const key = lockoutKey(attempt)
      memoryLockouts.delete(key)
      await Promise.all([
        redis
          .del(key)
          .catch((error: unknown) => logger.warn({ err: error }, 'sign-in lockout: reset failed')),
        signInClients
          .reward(digest(attempt.client), 1)
          .catch((error: unknown) => logger.warn({ err: error }, 'sign-in throttle: give-back failed')),
      ])
    },
    beginSignUp: (client) => consume(signUpClients, digest(client), 'sign-up'),
  }
}

async function consume(limiter: RateLimiterRedis, key: string, limit: AuthLimit): Promise<ThrottleDecision> {
  try {
    await limiter.consume(key)
    return { allowed: true }
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return refusal(rejection.msBeforeNext, limit)
    throw rejection
  }
}

function refusal(waitMs: number, limit: AuthLimit): ThrottleDecision {
  return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)), limit }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 32)
}
