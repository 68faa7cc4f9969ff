/**
 * Does what a DNS lookup returned match the record a tenant was told to publish? Pure: the caller
 * looks up with node:dns and passes the answer in its node shape (resolveTxt → string[][], one
 * record per entry, split into ≤255-byte strings that are joined here; resolveCname → string[];
 * resolveMx → { exchange, priority }[]) or the lookup's error code.
 *
 * Statuses: `verified`; `pending` when nothing is there yet or the lookup itself failed (a timeout
 * is never evidence against the tenant); `failed` when something is there but it is wrong, with a
 * reason naming what was found so the tenant can fix it without digging in DNS.
 */
export type DnsRecordType = 'TXT' | 'CNAME' | 'MX'
export type RecordStatus = 'verified' | 'pending' | 'failed'

export interface ExpectedDnsRecord {
  type: DnsRecordType
  name: string
  /** TXT: the text (`v=DKIM1; …`, `v=spf1 …`, `v=DMARC1; …` or a token); CNAME/MX: the target host. */
  value: string
}

export interface MxAnswer {
  exchange: string
  priority: number
}

export type DnsAnswer =
  | { type: 'TXT'; records: readonly (readonly string[])[] }
  | { type: 'CNAME'; records: readonly string[] }
  | { type: 'MX'; records: readonly MxAnswer[] }
  /** The node:dns error code: ENODATA, ENOTFOUND, ETIMEOUT, ESERVFAIL, … */
  | { error: string }

export interface RecordCheck {
  status: RecordStatus
  reason: string
  /** The lookup itself failed (timeout, SERVFAIL): this check says nothing about the record. */
  inconclusive?: true
}

const NOT_THERE = new Set(['ENODATA', 'ENOTFOUND'])

export function compareDnsRecord(expected: ExpectedDnsRecord, answer: DnsAnswer): RecordCheck {
  if ('error' in answer) return lookupFailed(expected, answer.error)
  if (answer.type !== expected.type) {
    throw new TypeError(`a ${answer.type} answer cannot check a ${expected.type} record`)
  }
  if (answer.records.length === 0) return nothingAt(expected)
  if (answer.type === 'CNAME') return compareCname(expected, answer.records)
  if (answer.type === 'MX') return compareMx(expected, answer.records)
  const texts = answer.records.map((chunks) => chunks.join(''))
  const kind = txtKind(expected.value)
  if (kind === 'dkim') return compareDkim(expected, texts)
  if (kind === 'spf') return compareSpf(expected, texts)
  if (kind === 'dmarc') return compareDmarc(expected, texts)
  return compareExactTxt(expected, texts)
}

function lookupFailed(expected: ExpectedDnsRecord, code: string): RecordCheck {
  if (NOT_THERE.has(code)) return nothingAt(expected)
  if (code === 'ETIMEOUT') {
    return { status: 'pending', reason: `lookup of ${expected.name} timed out`, inconclusive: true }
  }
  return {
    status: 'pending',
    reason: `lookup of ${expected.name} failed (${code}); will retry`,
    inconclusive: true,
  }
}

function nothingAt(expected: ExpectedDnsRecord): RecordCheck {
  return { status: 'pending', reason: `no ${expected.type} record found at ${expected.name} yet` }
}

function compareCname(expected: ExpectedDnsRecord, targets: readonly string[]): RecordCheck {
  const want = hostKey(expected.value)
  if (targets.some((target) => hostKey(target) === want)) {
    return { status: 'verified', reason: `${expected.name} points to ${want}` }
  }
  return {
    status: 'failed',
    reason: `${expected.name} points to ${targets.map(hostKey).join(', ')} instead of ${want}`,
  }
}

function compareMx(expected: ExpectedDnsRecord, records: readonly MxAnswer[]): RecordCheck {
  const want = hostKey(expected.value)
  if (records.some((record) => hostKey(record.exchange) === want)) {
    return { status: 'verified', reason: `${expected.name} has an MX record for ${want}` }
  }
  const found = records.map((record) => `${record.priority} ${hostKey(record.exchange)}`).join(', ')
  return { status: 'failed', reason: `${expected.name} has MX ${found} but not ${want}` }
}

function compareDkim(expected: ExpectedDnsRecord, texts: readonly string[]): RecordCheck {
  const want = dkimTags(expected.value)
  if (texts.some((text) => sameTags(dkimTags(text), want))) {
    return { status: 'verified', reason: `the DKIM record at ${expected.name} matches` }
  }
  const dkim = texts.find(isDkimRecord)
  if (dkim !== undefined) {
    const key = dkimTags(dkim).get('p') ?? ''
    if (key === want.get('p')) {
      return { status: 'failed', reason: `${expected.name} has the right key but other tags: ${quote(dkim)}` }
    }
    const found = key === '' ? 'a revoked DKIM key (empty p=)' : `a different DKIM key (p=${abbreviate(key)})`
    return {
      status: 'failed',
      reason: `${expected.name} has ${found}; expected p=${abbreviate(want.get('p') ?? '')}`,
    }
  }
  return {
    status: 'failed',
    reason: `${expected.name} has no DKIM record, only TXT ${texts.map(quote).join(', ')}`,
  }
}

function compareSpf(expected: ExpectedDnsRecord, texts: readonly string[]): RecordCheck {
  const spf = texts.filter((text) => /^v=spf1(\s|$)/i.test(text.trim()))
  if (spf.length === 0) return { status: 'pending', reason: `no SPF record found at ${expected.name} yet` }
  if (spf.length > 1) {
    return {
      status: 'failed',
      reason: `${expected.name} has ${spf.length} SPF records (receivers treat that as an error): ${spf.map(quote).join(', ')}`,
    }
  }
  const record = spf[0] as string
  const terms = new Set(record.trim().toLowerCase().split(/\s+/).map(stripTrailingDot))
  const missing = spfIncludes(expected.value).filter((include) => !terms.has(include))
  if (missing.length === 0) {
    return { status: 'verified', reason: `the SPF record at ${expected.name} includes what is needed` }
  }
  return { status: 'failed', reason: `the SPF record ${quote(record)} lacks ${missing.join(' ')}` }
}

function compareDmarc(expected: ExpectedDnsRecord, texts: readonly string[]): RecordCheck {
  const dmarc = texts.filter((text) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(text.trim()))
  if (dmarc.length === 0)
    return { status: 'pending', reason: `no DMARC record found at ${expected.name} yet` }
  if (dmarc.length > 1) {
    return {
      status: 'failed',
      reason: `${expected.name} has ${dmarc.length} DMARC records (receivers then ignore DMARC): ${dmarc.map(quote).join(', ')}`,
    }
  }
  return { status: 'verified', reason: `${expected.name} has a DMARC record: ${quote(dmarc[0] as string)}` }
}

function compareExactTxt(expected: ExpectedDnsRecord, texts: readonly string[]): RecordCheck {
  if (texts.some((text) => text.trim() === expected.value.trim())) {
    return { status: 'verified', reason: `the TXT record at ${expected.name} matches` }
  }
  return {
    status: 'failed',
    reason: `${expected.name} has TXT ${texts.map(quote).join(', ')} but not ${quote(expected.value)}`,
  }
}

function txtKind(value: string): 'dkim' | 'spf' | 'dmarc' | 'exact' {
  const text = value.trim()
  if (isDkimRecord(text)) return 'dkim'
  if (/^v=spf1(\s|$)/i.test(text)) return 'spf'
  if (/^v\s*=\s*DMARC1\s*(;|$)/i.test(text)) return 'dmarc'
  return 'exact'
}

function isDkimRecord(text: string): boolean {
  const tags = dkimTags(text)
  return tags.get('v') === 'DKIM1' || (tags.has('p') && tags.has('k'))
}

/**
 * DKIM tag=value pairs (RFC 6376 §3.2): whitespace around `;` and `=` is not part of the record, and
 * inside the base64 key it is folding, so it is dropped there too. Tag names stay case-sensitive.
 */
function dkimTags(text: string): Map<string, string> {
  const tags = new Map<string, string>()
  for (const part of text.split(';')) {
    const equals = part.indexOf('=')
    if (equals < 0) continue
    const name = part.slice(0, equals).trim()
    const raw = part.slice(equals + 1).trim()
    tags.set(name, name === 'p' ? raw.replace(/\s+/g, '') : raw)
  }
  return tags
}

function sameTags(found: Map<string, string>, want: Map<string, string>): boolean {
  if (found.size !== want.size) return false
  for (const [name, value] of want) if (found.get(name) !== value) return false
  return true
}

/** `include:` and `redirect=` terms of the expected SPF value, lowercased without trailing dots. */
function spfIncludes(value: string): string[] {
  return value
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => /^(include:|redirect=)/.test(term))
    .map(stripTrailingDot)
}

function hostKey(host: string): string {
  return stripTrailingDot(host.trim().toLowerCase())
}

function stripTrailingDot(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text
}

function abbreviate(key: string): string {
  return key.length <= 24 ? key : `${key.slice(0, 12)}…${key.slice(-8)}`
}

function quote(text: string): string {
  return JSON.stringify(text.length <= 120 ? text : `${text.slice(0, 117)}...`)
}
