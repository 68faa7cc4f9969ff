import { clientUnitOf } from '@fairlane/core'

/**
 * Open connections per client unit (`clientUnitOf`: an IPv4 address or an IPv6 /64). A connection is
 * counted from its admission to its close; one refused was never counted, so its close releases
 * nothing. Per process: each replica holds its own count (a cap per replica and address).
 */
export function createClientCount(maxPerUnit: number) {
  const perUnit = new Map<string, number>()
  const unitOfSession = new Map<string, string>()
  return {
    admit(sessionId: string, remoteAddress: string): boolean {
      const unit = clientUnitOf(remoteAddress)
      const open = perUnit.get(unit) ?? 0
      if (open >= maxPerUnit) return false
      perUnit.set(unit, open + 1)
      unitOfSession.set(sessionId, unit)
      return true
    },
    release(sessionId: string): void {
      const unit = unitOfSession.get(sessionId)
      if (unit === undefined) return
      unitOfSession.delete(sessionId)
      const open = (perUnit.get(unit) ?? 1) - 1
      if (open > 0) perUnit.set(unit, open)
      else perUnit.delete(unit)
    },
  }
}

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
