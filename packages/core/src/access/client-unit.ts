import ipaddr from 'ipaddr.js'

/**
 * The unit a per-client limit counts by: an IPv4 address, or an IPv6 /64 — one subscriber line gets
 * a whole /64, so counting single IPv6 addresses would give an attacker 2⁶⁴ fresh starts. IPv4-mapped
 * IPv6 (`::ffff:192.0.2.1`, what a dual-stack socket reports) counts as the IPv4 address it embeds.
 * Anything that is not an address counts as one shared `unknown`.
 */
export function clientUnitOf(address: string | null | undefined): string {
  if (address === null || address === undefined) return 'unknown'
  const trimmed = address.trim()
  if (!ipaddr.isValid(trimmed)) return 'unknown'
  const parsed = ipaddr.process(trimmed)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`
}

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
