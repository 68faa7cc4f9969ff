import { clientUnitOf } from '@fairlane/core'

export interface AuthThrottle {
  /** Ms until this client may try to log in again; 0: it may now. */
  blockedForMs(remoteAddress: string): number
  /** A failed login: past `maxFailures` within the window, the client is refused for the window. */
  failed(remoteAddress: string): void
}

/**
 * Failed logins per client unit within `windowMs`; the `maxFailures`-th blocks the client until
 * `windowMs` after it. A success does not clear the count: one valid key must not buy a guesser more
 * tries. Per process, as the connection cap (a guesser spread over replicas gets N per replica).
 */
export function createAuthThrottle(options: {
  maxFailures: number
  windowMs: number
  now?: () => number
}): AuthThrottle {
  const now = options.now ?? Date.now
  const failures = new Map<string, number[]>()
  const blockedUntil = new Map<string, number>()
  const forget = (at: number) => {
    if (failures.size + blockedUntil.size < 10_000) return
    for (const [unit, until] of blockedUntil) if (until <= at) blockedUntil.delete(unit)
    for (const [unit, times] of failures)
      if ((times.at(-1) ?? 0) <= at - options.windowMs) failures.delete(unit)
  }
  return {
    blockedForMs(remoteAddress) {
      const until = blockedUntil.get(clientUnitOf(remoteAddress)) ?? 0
      return Math.max(0, until - now())
    },
    failed(remoteAddress) {
      const unit = clientUnitOf(remoteAddress)
      const at = now()
      forget(at)
      const recent = (failures.get(unit) ?? []).filter((time) => time > at - options.windowMs)
      recent.push(at)
      failures.set(unit, recent)
      if (recent.length >= options.maxFailures) blockedUntil.set(unit, at + options.windowMs)
    },
  }
}
