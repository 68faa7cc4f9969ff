import { Resolver } from 'node:dns/promises'
import type { HostAddressLookup } from '@fairlane/core'
import { DEFAULT_DNS_LOOKUP, type DnsLookupOptions } from './resolver-lookup'

/**
 * A host's IPv4 and IPv6 addresses through node:dns's `Resolver` (DNS_SERVERS when set), for the
 * webhook URL check: every address the name has is judged, not just the one getaddrinfo would pick,
 * so a name with one public and one private address is refused. A lookup error comes back as its code.
 */
export function createHostAddressLookup(options: DnsLookupOptions = {}): HostAddressLookup {
  const resolver = new Resolver({
    timeout: options.timeoutMs ?? DEFAULT_DNS_LOOKUP.timeoutMs,
    tries: options.tries ?? DEFAULT_DNS_LOOKUP.tries,
  })
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers])
  return {
    async resolve(host) {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)])
      const addresses = [v4, v6].flatMap((result) => (result.status === 'fulfilled' ? result.value : []))
      if (addresses.length > 0) return { addresses }
      // Neither family answered: report the IPv4 lookup's reason (ENOTFOUND, ETIMEOUT, …).
      const failure = [v4, v6].find((result) => result.status === 'rejected')
      const code = failure ? (failure.reason as NodeJS.ErrnoException).code : undefined
      return { error: typeof code === 'string' ? code : 'ENODATA' }
    },
  }
}
