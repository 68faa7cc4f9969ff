import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import { forbiddenAddressReason } from '@fairlane/core'

/** Raised (as a lookup or request error) when every address of the host is one the platform must not reach. */
export const FORBIDDEN_ADDRESS_CODE = 'EFAIRLANEFORBIDDEN'

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * A `lookup` for `http.request` that drops every forbidden address (loopback, private, link-local,
 * metadata, …) after DNS answers, so the socket can only connect to a public one: the check happens
 * where the connection is made, and a name that resolved to a public address when the endpoint was
 * saved and resolves to 127.0.0.1 now (DNS rebinding) is refused. Node calls it with `all: true`
 * when it races IPv4 and IPv6 (autoSelectFamily), with a single address otherwise.
 */
export function safeLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    const allowed = addresses.filter((entry) => forbiddenAddressReason(entry.address) === null)
    if (allowed.length === 0) {
      const first = addresses[0]?.address ?? hostname
      return callback(forbiddenError(`${hostname} resolves to ${forbiddenAddressReason(first) ?? first}`), [])
    }
    if (options.all) return callback(null, allowed)
    const [chosen] = allowed as [LookupAddress]
    return callback(null, chosen.address, chosen.family)
  })
}

/**
 * A host written as an IP address never reaches `lookup` (the socket connects to it directly), so it
 * is checked here first. Returns the reason it is refused, or null.
 */
export function literalAddressProblem(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  return isIP(bare) === 0 ? null : forbiddenAddressReason(bare)
}

export function forbiddenError(message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message)
  error.code = FORBIDDEN_ADDRESS_CODE
  return error
}
