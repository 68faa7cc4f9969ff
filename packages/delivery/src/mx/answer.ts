import { domainToASCII } from 'node:url'

/**
 * How a domain's MX answer is decided from the raw DNS answers (RFC 5321 §5.1, RFC 7505), as pure
 * functions so every branch is tested without DNS: `resolve.ts` asks the questions, these say what the
 * answers mean and how long that may be remembered.
 */

/** One host to try, with every address it has (A and AAAA). */
export interface MxHost {
  host: string
  preference: number
  addresses: string[]
}

export type MxAnswer =
  /** Hosts in preference order, equal preferences shuffled; `implicit` when the domain has no MX and its own A/AAAA stands in. */
  | { kind: 'hosts'; domain: string; hosts: MxHost[]; implicit: boolean }
  /** RFC 7505: the domain says it accepts no mail. */
  | { kind: 'null-mx'; domain: string }
  /** Permanent: the domain does not exist, has nowhere to deliver, or is not a domain name. */
  | { kind: 'no-such-domain'; domain: string; reason: string }
  /** DNS did not answer (timeout, SERVFAIL): the message waits and asks again later. */
  | { kind: 'temporary'; domain: string; reason: string }

/** What one DNS question (name, type) came back with. */
export type RecordLookup<Record> =
  /** NOERROR: the records of that type (none is NODATA), and the smallest TTL in the answer. */
  | { kind: 'records'; records: Record[]; ttlSeconds: number | null }
  /** The name does not exist; `negativeTtlSeconds` from the zone's SOA when the answer carried one. */
  | { kind: 'nxdomain'; negativeTtlSeconds?: number }
  | { kind: 'failed'; reason: string }

export interface MxRecord {
  exchange: string
  preference: number
}

/** How long a decision may be remembered: its records' TTL, the negative TTL, or briefly (temporary). */
export type CacheLifetime =
  | { kind: 'ttl'; seconds: number }
  | { kind: 'negative'; seconds?: number }
  | { kind: 'temporary' }

export interface Decision {
  answer: MxAnswer
  cacheFor: CacheLifetime
}

export type NormalizedDomain = { ok: true; domain: string } | { ok: false; domain: string; reason: string }

// Letters, digits and hyphens per label, at most 63 bytes a label and 253 in all (RFC 1035 §2.3.4,
// RFC 5321 §4.1.2): what a domain looks like once IDNA has turned it into A-labels.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The name to look up: lowercased, without the root's trailing dot, and an IDN (bücher.example) in
 * its A-label form (xn--bcher-kva.example), which is the only form DNS knows.
 */
export function normalizeDomain(input: string): NormalizedDomain {
  const bare = input.trim().toLowerCase().replace(/\.$/, '')
  const ascii = bare === '' ? '' : domainToASCII(bare)
  if (ascii === '' || ascii.length > 253 || !ascii.split('.').every((label) => LABEL.test(label)))
    return { ok: false, domain: input, reason: `${JSON.stringify(input)} is not a valid domain name` }
  return { ok: true, domain: ascii }
}

/** What the MX question says: a final answer, the hosts whose addresses come next, or the A/AAAA fallback. */
export type MxStep =
  | { next: 'done'; decision: Decision }
  | { next: 'addresses'; exchanges: MxRecord[]; ttlSeconds: number | null }
  | { next: 'implicit' }

/**
 * Reads the answer to the MX question. A null MX is the single record whose exchange is the root
 * (RFC 7505 §3); a "." beside real hosts breaks that RFC's rule, and the real hosts are used.
 */
export function readMxLookup(domain: string, lookup: RecordLookup<MxRecord>): MxStep {
  if (lookup.kind === 'failed') return { next: 'done', decision: temporary(domain, lookup.reason) }
  if (lookup.kind === 'nxdomain')
    return {
      next: 'done',
      decision: {
        answer: { kind: 'no-such-domain', domain, reason: `${domain} does not exist (NXDOMAIN)` },
        cacheFor: { kind: 'negative', seconds: lookup.negativeTtlSeconds },
      },
    }
  if (lookup.records.length === 0) return { next: 'implicit' }
  const isRoot = (record: MxRecord) => record.exchange.replace(/\.$/, '') === ''
  if (lookup.records.length === 1 && isRoot(lookup.records[0] as MxRecord))
    return {
      next: 'done',
      decision: {
        answer: { kind: 'null-mx', domain },
        cacheFor: { kind: 'ttl', seconds: lookup.ttlSeconds ?? 0 },
      },
    }
  const exchanges = lookup.records
    .filter((record) => !isRoot(record))
    .map((record) => ({
      exchange: record.exchange.toLowerCase().replace(/\.$/, ''),
      preference: record.preference,
    }))
    .sort((a, b) => a.preference - b.preference)
  return { next: 'addresses', exchanges, ttlSeconds: lookup.ttlSeconds }
}

/** The A and AAAA answers for one host name. */
export interface AddressLookups {
  a: RecordLookup<string>
  aaaa: RecordLookup<string>
}

interface HostAddresses {
  addresses: string[]
  ttlSeconds: number | null
  failures: string[]
}

function readAddresses(host: string, lookups: AddressLookups): HostAddresses {
  const result: HostAddresses = { addresses: [], ttlSeconds: null, failures: [] }
  for (const [type, lookup] of [
    ['A', lookups.a],
    ['AAAA', lookups.aaaa],
  ] as const) {
    if (lookup.kind === 'failed') result.failures.push(`${type} of ${host}: ${lookup.reason}`)
    if (lookup.kind !== 'records' || lookup.records.length === 0) continue
    result.addresses.push(...lookup.records)
    result.ttlSeconds = minTtl(result.ttlSeconds, lookup.ttlSeconds)
  }
  return result
}

/**
 * The hosts of an MX answer with their addresses, in preference order. A host without an address is
 * skipped (RFC 5321 §5.1). When a lookup failed the answer stands but is remembered only briefly, so
 * a host that was merely slow to resolve is not left out for the MX record's whole TTL.
 */
export function hostsFromMx(
  domain: string,
  exchanges: readonly MxRecord[],
  mxTtlSeconds: number | null,
  addressesOf: (host: string) => AddressLookups,
): Decision {
  const hosts: MxHost[] = []
  const failures: string[] = []
  let ttlSeconds = mxTtlSeconds
  for (const { exchange, preference } of exchanges) {
    const found = readAddresses(exchange, addressesOf(exchange))
    failures.push(...found.failures)
    if (found.addresses.length === 0) continue
    hosts.push({ host: exchange, preference, addresses: found.addresses })
    ttlSeconds = minTtl(ttlSeconds, found.ttlSeconds)
  }
  if (hosts.length > 0)
    return {
      answer: { kind: 'hosts', domain, hosts, implicit: false },
      cacheFor: failures.length > 0 ? { kind: 'temporary' } : { kind: 'ttl', seconds: ttlSeconds ?? 0 },
    }
  if (failures.length > 0) return temporary(domain, failures.join('; '))
  const names = exchanges.map((record) => record.exchange).join(', ')
  return {
    answer: {
      kind: 'no-such-domain',
      domain,
      reason: `the MX hosts of ${domain} (${names}) have no A or AAAA address`,
    },
    cacheFor: { kind: 'negative' },
  }
}

/** No MX records: the domain itself is the one host, at preference 0, when it has an address (RFC 5321 §5.1). */
export function implicitMx(domain: string, lookups: AddressLookups): Decision {
  const found = readAddresses(domain, lookups)
  if (found.addresses.length > 0)
    return {
      answer: {
        kind: 'hosts',
        domain,
        hosts: [{ host: domain, preference: 0, addresses: found.addresses }],
        implicit: true,
      },
      cacheFor:
        found.failures.length > 0 ? { kind: 'temporary' } : { kind: 'ttl', seconds: found.ttlSeconds ?? 0 },
    }
  if (found.failures.length > 0) return temporary(domain, found.failures.join('; '))
  // NXDOMAIN for A after a NODATA for MX means the name went away between the two questions.
  const negative = [lookups.a, lookups.aaaa].find((lookup) => lookup.kind === 'nxdomain')
  return {
    answer: { kind: 'no-such-domain', domain, reason: `${domain} has no MX and no A or AAAA records` },
    cacheFor: {
      kind: 'negative',
      seconds: negative?.kind === 'nxdomain' ? negative.negativeTtlSeconds : undefined,
    },
  }
}

/**
 * The hosts in preference order with equal preferences in random order, so the load spreads over a
 * domain's equal MX hosts as RFC 5321 §5.1 asks. Shuffled anew for every caller, not once per cache entry.
 */
export function shuffleEqualPreferences(
  hosts: readonly MxHost[],
  random: () => number = Math.random,
): MxHost[] {
  const shuffled = hosts.map((host) => ({ host, key: random() }))
  shuffled.sort((a, b) => a.host.preference - b.host.preference || a.key - b.key)
  return shuffled.map(({ host }) => host)
}

function temporary(domain: string, reason: string): Decision {
  return { answer: { kind: 'temporary', domain, reason }, cacheFor: { kind: 'temporary' } }
}

function minTtl(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return Math.min(a, b)
}
