import { isIPv4, isIPv6 } from 'node:net'

export const DNS_RECORD_TYPES = ['TXT', 'CNAME', 'MX', 'A', 'AAAA'] as const
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number]

/** Seconds a resolver may cache a record; 60 when a record does not say (MX lookups honour TTLs). */
type Ttl = { ttl?: number }

export type DnsRecord = (
  | { type: 'TXT'; name: string; value: string }
  | { type: 'CNAME'; name: string; value: string }
  /** `value` "." is a null MX (RFC 7505): the domain accepts no mail. */
  | { type: 'MX'; name: string; value: string; priority?: number }
  /** Addresses, so a test can point a name at 127.0.0.1 or 10.0.0.1 (the webhook URL check). */
  | { type: 'A'; name: string; value: string }
  | { type: 'AAAA'; name: string; value: string }
) &
  Ttl

/** The largest TTL RFC 2181 §8 allows (2^31 - 1 seconds). */
export const MAX_TTL_SECONDS = 2_147_483_647

export type ParsedDnsRecord =
  | { ok: true; value: DnsRecord }
  | { ok: false; field: 'type' | 'name' | 'value' | 'priority' | 'ttl' | 'body'; message: string }

/** DNS names compare case-blind, with or without the root's trailing dot. */
export function dnsKey(name: string): string {
  return name.toLowerCase().replace(/\.$/, '')
}

// Letters, digits, hyphens and underscores (for `_domainkey`, `_dmarc`) per label; at most 63 bytes a
// label and 253 in all (RFC 1035 §2.3.4). A server for development does not need IDNA: punycode is ASCII.
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i

export function isDnsName(name: string): boolean {
  const bare = name.replace(/\.$/, '')
  return bare.length > 0 && bare.length <= 253 && bare.split('.').every((label) => LABEL.test(label))
}

/** A TXT value the server can send: printable ASCII (what DKIM, SPF and DMARC records are), any length. */
export function isTxtValue(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value) && value.length <= 4_000
}

/**
 * Reads a record as a client of the sink's HTTP API sends it, naming the field that is wrong so
 * the answer can say which.
 */
export function parseDnsRecord(input: unknown): ParsedDnsRecord {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, field: 'body', message: 'expected a JSON object { "type", "name", "value" }' }
  const { ttl } = input as Record<string, unknown>
  if (
    ttl !== undefined &&
    !(Number.isInteger(ttl) && (ttl as number) >= 0 && (ttl as number) <= MAX_TTL_SECONDS)
  )
    return {
      ok: false,
      field: 'ttl',
      message: `"ttl" must be an integer from 0 to ${MAX_TTL_SECONDS} (seconds)`,
    }
  const parsed = parseRecordWithoutTtl(input as Record<string, unknown>)
  return parsed.ok && ttl !== undefined
    ? { ok: true, value: { ...parsed.value, ttl: ttl as number } }
    : parsed
}

function parseRecordWithoutTtl(input: Record<string, unknown>): ParsedDnsRecord {
  const { type, name, value, priority } = input
  if (typeof type !== 'string' || !(DNS_RECORD_TYPES as readonly string[]).includes(type.toUpperCase()))
    return { ok: false, field: 'type', message: `"type" must be one of ${DNS_RECORD_TYPES.join(', ')}` }
  if (typeof name !== 'string' || !isDnsName(name))
    return {
      ok: false,
      field: 'name',
      message: '"name" must be a DNS name such as "fl1._domainkey.example.com"',
    }
  if (typeof value !== 'string') return { ok: false, field: 'value', message: '"value" must be a string' }
  const kind = type.toUpperCase() as DnsRecordType
  if (kind === 'TXT') {
    if (!isTxtValue(value))
      return {
        ok: false,
        field: 'value',
        message: '"value" of a TXT record must be printable ASCII of at most 4000 characters',
      }
    return { ok: true, value: { type: kind, name, value } }
  }
  if (kind === 'A' || kind === 'AAAA') {
    const valid = kind === 'A' ? isIPv4(value) : isIPv6(value)
    if (!valid) {
      const family = kind === 'A' ? 'IPv4' : 'IPv6'
      return {
        ok: false,
        field: 'value',
        message: `"value" of an ${kind} record must be an ${family} address`,
      }
    }
    return { ok: true, value: { type: kind, name, value } }
  }
  // The root name "." is an MX record's only value that is no host: the null MX of RFC 7505.
  if (!isDnsName(value) && !(kind === 'MX' && value === '.'))
    return { ok: false, field: 'value', message: `"value" of a ${kind} record must be a DNS name` }
  if (kind === 'CNAME') return { ok: true, value: { type: kind, name, value } }
  if (
    priority !== undefined &&
    !(Number.isInteger(priority) && (priority as number) >= 0 && (priority as number) <= 65535)
  )
    return { ok: false, field: 'priority', message: '"priority" must be an integer from 0 to 65535' }
  return {
    ok: true,
    value:
      priority === undefined
        ? { type: kind, name, value }
        : { type: kind, name, value, priority: priority as number },
  }
}

/** A TXT value as character-strings of at most 255 bytes (RFC 1035 §3.3.14); the values are ASCII. */
export function splitTxt(value: string): string[] {
  if (!/^[\x20-\x7e]*$/.test(value))
    throw new Error(`DNS server: TXT values are printable ASCII, not ${JSON.stringify(value)}`)
  const parts: string[] = []
  for (let start = 0; start < value.length; start += 255) parts.push(value.slice(start, start + 255))
  return parts.length > 0 ? parts : ['']
}
