/**
 * The sign-in lockout of one (email address, client address) pair: a few attempts are free, then
 * each further attempt first waits out a lock that doubles with every attempt, up to a ceiling. An
 * attempt is counted before the password is checked (so a burst of parallel guesses cannot all slip
 * past one read), and a successful sign-in forgets the pair. Keyed by the pair, a stranger guessing
 * someone's password locks only themselves out; the owner, from their own address, signs in as usual.
 *
 * `decideLockout` is the rule; `LOCKOUT_SCRIPT` is the same rule as one atomic step in Redis, on
 * Redis's clock (so every web process agrees); the in-memory fallback for a Redis outage runs the
 * TypeScript one.
 */
export interface LockoutPolicy {
  /** Attempts before the first lock; the last of them starts it. */
  freeAttempts: number
  firstLockMs: number
  longestLockMs: number
  /** How long the pair's count outlives its last lock: the count of a quiet pair starts over after this. */
  memoryMs: number
}

export interface LockoutState {
  attempts: number
  lockedUntilMs: number
}

export type LockoutDecision =
  | { allowed: true; next: LockoutState; expiresAtMs: number }
  | { allowed: false; waitMs: number }

export function lockMsAfter(attempts: number, policy: LockoutPolicy): number {
  if (attempts < policy.freeAttempts) return 0
  return Math.min(policy.firstLockMs * 2 ** (attempts - policy.freeAttempts), policy.longestLockMs)
}

export function decideLockout(
  state: LockoutState | null,
  nowMs: number,
  policy: LockoutPolicy,
): LockoutDecision {
  const attempts = state?.attempts ?? 0
  const lockedUntilMs = state?.lockedUntilMs ?? 0
  if (nowMs < lockedUntilMs) return { allowed: false, waitMs: lockedUntilMs - nowMs }
  const lockMs = lockMsAfter(attempts + 1, policy)
  return {
    allowed: true,
    next: { attempts: attempts + 1, lockedUntilMs: nowMs + lockMs },
    expiresAtMs: nowMs + lockMs + policy.memoryMs,
  }
}

/**
 * KEYS[1]  hash of one pair: `a` attempts counted, `u` locked until (ms, Redis clock)
 * ARGV[1]  freeAttempts   ARGV[2] firstLockMs   ARGV[3] longestLockMs   ARGV[4] memoryMs
 * Returns  {1, lockMs this attempt started (0: none)} when allowed, {0, ms until the lock ends} when not.
 */
export const LOCKOUT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'a', 'u')
local attempts = tonumber(state[1]) or 0
local lockedUntil = tonumber(state[2]) or 0
if now < lockedUntil then
  return {0, lockedUntil - now}
end
attempts = attempts + 1
local free = tonumber(ARGV[1])
local lock = 0
if attempts >= free then
  lock = math.min(tonumber(ARGV[2]) * 2 ^ (attempts - free), tonumber(ARGV[3]))
end
redis.call('HSET', KEYS[1], 'a', attempts, 'u', now + lock)
redis.call('PEXPIRE', KEYS[1], lock + tonumber(ARGV[4]))
return {1, lock}
`
