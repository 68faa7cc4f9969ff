import ipaddr from 'ipaddr.js'

/**
 * Where a webhook may not go: anything but a public unicast address. A tenant's webhook URL is a
 * request the platform makes from inside its own network, so an address of that network (loopback, a
 * private range, link-local with the cloud metadata service at 169.254.169.254, carrier-grade NAT with
 * Alibaba's at 100.100.100.200, IPv6 unique-local with AWS's fd00:ec2::254) would let a tenant read
 * what only the platform can reach (server-side request forgery).
 *
 * The rule is applied twice: to the URL when the endpoint is saved (`webhookUrlProblem`) and to every
 * address the worker connects to, after DNS (`forbiddenAddressReason` in its lookup), so a name that
 * resolves to a public address when saved and to 127.0.0.1 later (DNS rebinding) is still refused.
 */

/** Why the platform must not connect to `address`, or null when it is a public unicast address. */
export function forbiddenAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) reaches the IPv4 address it embeds: judge that one.
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range === 'unicast') return null
  return `${parsed.toString()} is a ${RANGE_NAMES[range] ?? `${range} address`}, not a public one`
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address (the cloud metadata service lives there)',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private network address',
  reserved: 'reserved address',
  uniqueLocal: 'unique-local IPv6 address',
  ipv4Mapped: 'IPv4-mapped address',
  rfc6145: 'IPv4-translated address',
  rfc6052: 'NAT64 address (it embeds an IPv4 address)',
  '6to4': '6to4 address (it embeds an IPv4 address)',
  teredo: 'Teredo address (it embeds an IPv4 address)',
  benchmarking: 'benchmarking address',
}

export const WEBHOOK_URL_MAX_LENGTH = 2048

/**
 * What is wrong with a webhook URL as written, or null: the checks that need no DNS. `allowPrivate`
 * (WEBHOOK_ALLOW_PRIVATE, development and tests) also allows plain `http` and private addresses. A
 * host name that is not an IP literal must still be resolved, and each address checked with
 * `forbiddenAddressReason`, by the caller.
 */
export function webhookUrlProblem(url: string, options: { allowPrivate: boolean }): string | null {
  if (url.length > WEBHOOK_URL_MAX_LENGTH) {
    return `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters (got ${url.length})`
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'url is not an absolute URL'
  }
  const protocols = options.allowPrivate ? ['https:', 'http:'] : ['https:']
  if (!protocols.includes(parsed.protocol)) {
    return options.allowPrivate ? 'url must start with https:// or http://' : 'url must start with https://'
  }
  if (parsed.username || parsed.password) return 'url must not contain a user name or password'
  if (options.allowPrivate) return null
  // The URL parser has already turned 2130706433, 0177.0.0.1 and 0x7f.1 into 127.0.0.1.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1')
  if (ipaddr.isValid(host)) {
    const reason = forbiddenAddressReason(host)
    return reason && `url must point at a public address: ${reason}`
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return 'url must point at a public address: localhost is a loopback name'
  }
  return null
}
