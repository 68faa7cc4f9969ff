import ipaddr from 'ipaddr.js'
import type { MxHost } from './answer'

/**
 * Where MX mode may not deliver in production: anything but a public unicast address. A recipient's
 * domain is chosen by whoever writes the address, so an MX pointing at 127.0.0.1, a private range or
 * the cloud metadata service (169.254.169.254) would make Fairlane talk SMTP to its own network on a
 * stranger's behalf. `MX_ALLOW_PRIVATE=true` (`pnpm start --mx`, the tests) lifts the rule, because
 * the sink's receivers live on loopback addresses.
 */

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private network address',
  reserved: 'reserved address',
  uniqueLocal: 'unique-local IPv6 address',
  ipv4Mapped: 'IPv4-mapped address',
  rfc6145: 'IPv4-translated address',
  rfc6052: 'NAT64 address',
  '6to4': '6to4 address',
  teredo: 'Teredo address',
  benchmarking: 'benchmarking address',
  discard: 'discard-only address',
  deprecatedSiteLocal: 'site-local IPv6 address',
}

/** Why `address` is not a public unicast address, or null when it is one. */
export function privateAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  // ipaddr.process turns an IPv4-mapped IPv6 address (::ffff:127.0.0.1) into the IPv4 address it
  // reaches, so the mapped form of a private address is judged as that address.
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range === 'unicast') return null
  return `${parsed.toString()} is a ${RANGE_NAMES[range] ?? `${range} address`}, not a public one`
}

/**
 * True for loopback, RFC 1918, link-local, carrier-grade NAT (100.64/10), 0.0.0.0/8, unique-local
 * fc00::/7, ::1, the IPv4-mapped forms of these, and every other special range; also for a string
 * that is not an IP address at all (a connection there cannot be judged, so it is refused).
 */
export function isPrivateAddress(address: string): boolean {
  return privateAddressReason(address) !== null
}

export interface RefusedAddress {
  host: string
  address: string
  reason: string
}

export interface AllowedHosts {
  /** The hosts in their order, each with only its allowed addresses; a host left with none is dropped. */
  hosts: MxHost[]
  /** Every address taken out, with why. */
  refused: RefusedAddress[]
}

/**
 * The MX hosts the transport may connect to. With `allowPrivate` every address is allowed; without
 * it, private and loopback addresses are taken out and listed, so a domain whose every MX points
 * inward can fail naming the addresses rather than as "no hosts".
 */
export function filterAllowed(hosts: readonly MxHost[], options: { allowPrivate: boolean }): AllowedHosts {
  if (options.allowPrivate) return { hosts: hosts.map((host) => ({ ...host })), refused: [] }
  const allowed: MxHost[] = []
  const refused: RefusedAddress[] = []
  for (const host of hosts) {
    const addresses: string[] = []
    for (const address of host.addresses) {
      const reason = privateAddressReason(address)
      if (reason === null) addresses.push(address)
      else refused.push({ host: host.host, address, reason })
    }
    if (addresses.length > 0) allowed.push({ ...host, addresses })
  }
  return { hosts: allowed, refused }
}
