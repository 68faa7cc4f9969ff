import { Resolver } from 'node:dns/promises'
import type { DnsAnswer, DnsLookup } from '@fairlane/core'

export interface DnsLookupOptions {
  /** DNS_SERVERS (`127.0.0.1:5353`, `[::1]:53`); the system's resolvers when undefined. */
  servers?: readonly string[]
  /** Per try, in milliseconds (c-ares doubles it on each retry). */
  timeoutMs?: number
  tries?: number
}

export const DEFAULT_DNS_LOOKUP = { timeoutMs: 2_000, tries: 2 }

/**
 * Domain verification's DNS lookups through node:dns's `Resolver` (c-ares, not the system's
 * getaddrinfo): the answers come back in the shapes `compareDnsRecord` takes, and a failed lookup as
 * its error code (`ETIMEOUT`, `ENOTFOUND`, …) rather than a throw, so a timeout leaves a record
 * pending instead of failing it. One resolver per adapter: its servers never change at run time.
 */
export function createDnsLookup(options: DnsLookupOptions = {}): DnsLookup {
  const resolver = new Resolver({
    timeout: options.timeoutMs ?? DEFAULT_DNS_LOOKUP.timeoutMs,
    tries: options.tries ?? DEFAULT_DNS_LOOKUP.tries,
  })
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers])
  return {
    async lookup({ type, name }): Promise<DnsAnswer> {
      try {
        if (type === 'TXT') return { type, records: await resolver.resolveTxt(name) }
        if (type === 'CNAME') return { type, records: await resolver.resolveCname(name) }
        return { type, records: await resolver.resolveMx(name) }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        return { error: typeof code === 'string' ? code : 'EUNKNOWN' }
      }
    },
  }
}
