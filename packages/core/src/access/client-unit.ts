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
