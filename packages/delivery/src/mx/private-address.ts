import { forbiddenAddressReason } from '@fairlane/core'
import type { MxHost } from './answer'

/**
 * Where MX mode may not deliver in production: anything but a public unicast address. A recipient's
 * domain is chosen by whoever writes the address, so an MX pointing at 127.0.0.1, a private range or
 * the cloud metadata service (169.254.169.254) would make Fairlane talk SMTP to its own network on a
 * stranger's behalf. `MX_ALLOW_PRIVATE=true` (`pnpm start --mx`, the tests) lifts the rule, because
 * the sink's receivers live on loopback addresses.
 */

/**
 * Why `address` is not a public unicast address, or null when it is one: the webhooks' rule
 * (`forbiddenAddressReason`), one table of special ranges for every connection Fairlane makes on a
 * stranger's say-so.
 */
export function privateAddressReason(address: string): string | null {
  return forbiddenAddressReason(address)
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
