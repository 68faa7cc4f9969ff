import {
  type AddressLookups,
  type CacheLifetime,
  type Decision,
  hostsFromMx,
  implicitMx,
  type MxAnswer,
  normalizeDomain,
  readMxLookup,
  shuffleEqualPreferences,
} from './answer'
import { createDnsQuery, type DnsQuery } from './dns-query'

export type { MxAnswer, MxHost } from './answer'

export interface MxResolverOptions {
  /** DNS_SERVERS (`127.0.0.1:5353`, `[::1]:53`); the system's resolvers (node:dns `getServers()`) when unset. */
  servers?: string[]
  /**
   * How long one server gets to answer one question before the next server is asked. A lookup asks
   * MX, then the hosts' A and AAAA together, so a dead DNS answers `temporary` after at most
   * 2 × servers × timeoutMs.
   */
  timeoutMs?: number
  /** How long "no such domain" is remembered when the answer carried no SOA to say. */
  negativeTtlMs?: number
  /** How long a DNS failure is remembered: a burst of mail to a domain whose DNS is down asks once, not per message. */
  temporaryTtlMs?: number
  /** The most domains remembered; the least recently used goes first. */
  maxEntries?: number
  /** An upper bound on any record's TTL, so a zone's mistake (a TTL of years) cannot pin an answer. */
  maxTtlMs?: number
  clock?: { now(): number }
  /** For tests: the order of equal-preference hosts. */
  random?: () => number
}

export interface MxResolver {
  resolve(domain: string): Promise<MxAnswer>
}

export const MX_RESOLVER_DEFAULTS = {
  timeoutMs: 2_000,
  negativeTtlMs: 60_000,
  temporaryTtlMs: 5_000,
  maxEntries: 10_000,
  maxTtlMs: 86_400_000,
}

interface CacheEntry {
  answer: MxAnswer
  expiresAt: number
}

/**
 * Each recipient domain's MX hosts with their addresses, remembered for as long as the records' TTLs
 * allow (RFC 5321 §5.1, RFC 7505). A lookup that fails is an answer of its own (`temporary`): the
 * message waits, it is never failed because DNS was slow. Concurrent calls for one domain share one
 * set of queries.
 */
export function createMxResolver(options: MxResolverOptions = {}): MxResolver {
  const settings = { ...MX_RESOLVER_DEFAULTS, ...withoutUndefined(options) }
  for (const [name, least] of [
    ['timeoutMs', 1],
    ['negativeTtlMs', 0],
    ['temporaryTtlMs', 0],
    ['maxEntries', 1],
    ['maxTtlMs', 0],
  ] as const) {
    const value = settings[name]
    if (!Number.isInteger(value) || value < least)
      throw new Error(`MX resolver: ${name} must be an integer of at least ${least}; got ${value}`)
  }
  const clock = options.clock ?? Date
  const random = options.random ?? Math.random
  const query = createDnsQuery({ servers: options.servers, timeoutMs: settings.timeoutMs })
  // A Map keeps insertion order: re-inserting on every hit makes its first key the least recently used.
  const cache = new Map<string, CacheEntry>()
  const inFlight = new Map<string, Promise<MxAnswer>>()

  const lifetimeMs = (cacheFor: CacheLifetime): number => {
    if (cacheFor.kind === 'temporary') return settings.temporaryTtlMs
    if (cacheFor.kind === 'negative')
      return cacheFor.seconds === undefined
        ? settings.negativeTtlMs
        : Math.min(cacheFor.seconds * 1000, settings.maxTtlMs)
    return Math.min(cacheFor.seconds * 1000, settings.maxTtlMs)
  }

  const remember = (domain: string, decision: Decision) => {
    const ttlMs = lifetimeMs(decision.cacheFor)
    if (ttlMs <= 0) return
    cache.delete(domain)
    cache.set(domain, { answer: decision.answer, expiresAt: clock.now() + ttlMs })
    while (cache.size > settings.maxEntries) {
      const oldest = cache.keys().next().value
      if (oldest === undefined) break
      cache.delete(oldest)
    }
  }

  const cached = (domain: string): MxAnswer | undefined => {
    const entry = cache.get(domain)
    if (!entry) return undefined
    if (entry.expiresAt <= clock.now()) {
      cache.delete(domain)
      return undefined
    }
    cache.delete(domain)
    cache.set(domain, entry)
    return entry.answer
  }

  const present = (answer: MxAnswer): MxAnswer =>
    answer.kind === 'hosts' ? { ...answer, hosts: shuffleEqualPreferences(answer.hosts, random) } : answer

  return {
    async resolve(input) {
      const normalized = normalizeDomain(input)
      if (!normalized.ok)
        return { kind: 'no-such-domain', domain: normalized.domain, reason: normalized.reason }
      const domain = normalized.domain
      const known = cached(domain)
      if (known) return present(known)
      let pending = inFlight.get(domain)
      if (!pending) {
        pending = lookUp(query, domain)
          // A throw here is a fault of this code or dns2, not of the domain: the message waits.
          .catch((error: unknown) =>
            temporaryDecision(domain, `MX lookup of ${domain} failed: ${String(error)}`),
          )
          .then((decision) => {
            remember(domain, decision)
            return decision.answer
          })
          .finally(() => inFlight.delete(domain))
        inFlight.set(domain, pending)
      }
      return present(await pending)
    },
  }
}

/** The questions for one domain: MX, then the addresses of its hosts (or of the domain itself). */
async function lookUp(query: DnsQuery, domain: string): Promise<Decision> {
  const step = readMxLookup(domain, await query.mx(domain))
  if (step.next === 'done') return step.decision
  if (step.next === 'implicit') return implicitMx(domain, await addressLookups(query, domain))
  const names = [...new Set(step.exchanges.map((record) => record.exchange))]
  const found = new Map(
    await Promise.all(names.map(async (name) => [name, await addressLookups(query, name)] as const)),
  )
  return hostsFromMx(domain, step.exchanges, step.ttlSeconds, (name) => found.get(name) as AddressLookups)
}

function temporaryDecision(domain: string, reason: string): Decision {
  return { answer: { kind: 'temporary', domain, reason }, cacheFor: { kind: 'temporary' } }
}

async function addressLookups(query: DnsQuery, name: string): Promise<AddressLookups> {
  const [a, aaaa] = await Promise.all([query.addresses(name, 'A'), query.addresses(name, 'AAAA')])
  return { a, aaaa }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>
}
