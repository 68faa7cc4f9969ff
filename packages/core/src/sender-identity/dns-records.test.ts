import { describe, expect, it } from 'vitest'
import { compareDnsRecord, type ExpectedDnsRecord } from './dns-records'

// A realistic 2048-bit key length (392 base64 characters) so the 255-byte split is exercised.
const KEY = `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${'x'.repeat(340)}IDAQAB`
const OTHER_KEY = `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${'y'.repeat(340)}IDAQAB`
const dkim: ExpectedDnsRecord = {
  type: 'TXT',
  name: 'fl1._domainkey.example.com',
  value: `v=DKIM1; k=rsa; p=${KEY}`,
}
const txt = (...records: string[][]) => ({ type: 'TXT' as const, records })

/** How resolveTxt returns a long record: cut into strings of at most 255 characters. */
function split255(text: string): string[] {
  const chunks: string[] = []
  for (let index = 0; index < text.length; index += 255) chunks.push(text.slice(index, index + 255))
  return chunks
}

describe('compareDnsRecord: DKIM', () => {
  it('verifies the exact record', () => {
    expect(compareDnsRecord(dkim, txt([dkim.value]))).toEqual({
      status: 'verified',
      reason: 'the DKIM record at fl1._domainkey.example.com matches',
    })
  })

  it('joins a record split into 255-byte strings', () => {
    const chunks = split255(dkim.value)
    expect(chunks.length).toBeGreaterThan(1)
    expect(compareDnsRecord(dkim, txt(chunks)).status).toBe('verified')
  })

  it('tolerates whitespace around ; and =, a trailing ;, and folding inside the key', () => {
    for (const text of [
      `v=DKIM1;k=rsa;p=${KEY}`,
      `v=DKIM1 ;  k=rsa ;\tp = ${KEY};`,
      `  v=DKIM1; k=rsa; p=${KEY.slice(0, 100)} ${KEY.slice(100)}  `,
    ]) {
      expect(compareDnsRecord(dkim, txt(split255(text))).status, text).toBe('verified')
    }
  })

  it('picks the matching record among several TXT records at the name', () => {
    const answer = txt(
      ['google-site-verification=abc'],
      split255(`v=DKIM1; k=rsa; p=${OTHER_KEY}`),
      split255(dkim.value),
    )
    expect(compareDnsRecord(dkim, answer).status).toBe('verified')
  })

  it('fails naming a different DKIM key found there', () => {
    const check = compareDnsRecord(dkim, txt(['some other text'], split255(`v=DKIM1; k=rsa; p=${OTHER_KEY}`)))
    expect(check.status).toBe('failed')
    expect(check.reason).toContain('a different DKIM key (p=MIIBIjANBgkq…')
    expect(check.reason).toContain('fl1._domainkey.example.com')
  })

  it('fails on a revoked key (empty p=) and on the right key with other tags', () => {
    expect(compareDnsRecord(dkim, txt(['v=DKIM1; k=rsa; p='])).reason).toContain('revoked')
    const extra = compareDnsRecord(dkim, txt(split255(`v=DKIM1; k=rsa; t=y; p=${KEY}`)))
    expect(extra.status).toBe('failed')
    expect(extra.reason).toContain('right key but other tags')
  })

  it('fails when a byte of the key differs or the tags differ in case', () => {
    expect(compareDnsRecord(dkim, txt([dkim.value.replace('IDAQAB', 'IDAQAC')])).status).toBe('failed')
    expect(compareDnsRecord(dkim, txt([dkim.value.replace('k=rsa', 'K=rsa')])).status).toBe('failed')
  })

  it('fails naming the TXT found when none is a DKIM record', () => {
    const check = compareDnsRecord(dkim, txt(['v=spf1 -all']))
    expect(check).toEqual({
      status: 'failed',
      reason: 'fl1._domainkey.example.com has no DKIM record, only TXT "v=spf1 -all"',
    })
  })

  it('is pending when nothing is found, and when the lookup fails or times out (never failed)', () => {
    expect(compareDnsRecord(dkim, txt())).toEqual({
      status: 'pending',
      reason: 'no TXT record found at fl1._domainkey.example.com yet',
    })
    expect(compareDnsRecord(dkim, { error: 'ENOTFOUND' }).status).toBe('pending')
    expect(compareDnsRecord(dkim, { error: 'ENODATA' }).status).toBe('pending')
    expect(compareDnsRecord(dkim, { error: 'ETIMEOUT' })).toEqual({
      status: 'pending',
      reason: 'lookup of fl1._domainkey.example.com timed out',
      inconclusive: true,
    })
    expect(compareDnsRecord(dkim, { error: 'ENOTFOUND' }).inconclusive).toBeUndefined()
    expect(compareDnsRecord(dkim, { error: 'ESERVFAIL' })).toEqual({
      status: 'pending',
      reason: 'lookup of fl1._domainkey.example.com failed (ESERVFAIL); will retry',
      inconclusive: true,
    })
  })

  it('refuses an answer of another type than the record (a caller bug)', () => {
    expect(() => compareDnsRecord(dkim, { type: 'CNAME', records: ['x.example.'] })).toThrow(TypeError)
  })
})

describe('compareDnsRecord: CNAME and MX', () => {
  const cname: ExpectedDnsRecord = {
    type: 'CNAME',
    name: 'fl-bounces.example.com',
    value: 'rp.fairlane.example',
  }

  it('matches a CNAME case-insensitively, with or without the trailing dot on either side', () => {
    for (const target of ['rp.fairlane.example', 'rp.fairlane.example.', 'RP.Fairlane.Example.']) {
      expect(compareDnsRecord(cname, { type: 'CNAME', records: [target] }).status, target).toBe('verified')
    }
    expect(
      compareDnsRecord(
        { ...cname, value: 'RP.fairlane.example.' },
        { type: 'CNAME', records: ['rp.fairlane.example'] },
      ).status,
    ).toBe('verified')
  })

  it('fails naming where a CNAME points instead', () => {
    expect(compareDnsRecord(cname, { type: 'CNAME', records: ['other.host.'] })).toEqual({
      status: 'failed',
      reason: 'fl-bounces.example.com points to other.host instead of rp.fairlane.example',
    })
  })

  it('is pending without a CNAME', () => {
    expect(compareDnsRecord(cname, { type: 'CNAME', records: [] }).status).toBe('pending')
    expect(compareDnsRecord(cname, { error: 'ENODATA' }).status).toBe('pending')
  })

  it('matches an MX exchange among several and names the ones found otherwise', () => {
    const mx: ExpectedDnsRecord = { type: 'MX', name: 'rp.fairlane.example', value: 'in.fairlane.example' }
    const records = [
      { exchange: 'backup.example', priority: 20 },
      { exchange: 'IN.fairlane.example.', priority: 10 },
    ]
    expect(compareDnsRecord(mx, { type: 'MX', records }).status).toBe('verified')
    expect(compareDnsRecord(mx, { type: 'MX', records: records.slice(0, 1) })).toEqual({
      status: 'failed',
      reason: 'rp.fairlane.example has MX 20 backup.example but not in.fairlane.example',
    })
  })
})

describe('compareDnsRecord: SPF and DMARC advice', () => {
  const spf: ExpectedDnsRecord = {
    type: 'TXT',
    name: 'example.com',
    value: 'v=spf1 include:spf.fairlane.example ~all',
  }
  const dmarc: ExpectedDnsRecord = { type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none' }

  it('verifies an SPF record that includes the host among other mechanisms', () => {
    const record = 'v=spf1 ip4:192.0.2.1 include:_spf.google.com INCLUDE:spf.fairlane.example. -all'
    expect(compareDnsRecord(spf, txt(['MS=ms123'], split255(record))).status).toBe('verified')
  })

  it('fails an SPF record without the include, naming the record and what it lacks', () => {
    expect(compareDnsRecord(spf, txt(['v=spf1 include:_spf.google.com ~all']))).toEqual({
      status: 'failed',
      reason: 'the SPF record "v=spf1 include:_spf.google.com ~all" lacks include:spf.fairlane.example',
    })
  })

  it('does not take a longer host for the included one', () => {
    expect(compareDnsRecord(spf, txt(['v=spf1 include:spf.fairlane.example.evil.com ~all'])).status).toBe(
      'failed',
    )
  })

  it('fails on two SPF records and is pending with none', () => {
    const two = compareDnsRecord(spf, txt(['v=spf1 -all'], ['v=spf1 include:spf.fairlane.example ~all']))
    expect(two.status).toBe('failed')
    expect(two.reason).toContain('2 SPF records')
    expect(compareDnsRecord(spf, txt(['some verification token'])).status).toBe('pending')
  })

  it('verifies any DMARC record, whatever its policy, and names it', () => {
    expect(compareDnsRecord(dmarc, txt(['v=DMARC1; p=reject; rua=mailto:d@example.com']))).toEqual({
      status: 'verified',
      reason: '_dmarc.example.com has a DMARC record: "v=DMARC1; p=reject; rua=mailto:d@example.com"',
    })
    expect(compareDnsRecord(dmarc, txt(['v = DMARC1 ;p=quarantine'])).status).toBe('verified')
  })

  it('is pending without a DMARC record and fails on two', () => {
    expect(compareDnsRecord(dmarc, txt(['v=spf1 -all'])).status).toBe('pending')
    expect(compareDnsRecord(dmarc, { error: 'ENOTFOUND' }).status).toBe('pending')
    expect(compareDnsRecord(dmarc, txt(['v=DMARC1; p=none'], ['v=DMARC1; p=reject'])).status).toBe('failed')
  })
})

describe('compareDnsRecord: other TXT (ownership token)', () => {
  const token: ExpectedDnsRecord = {
    type: 'TXT',
    name: '_fairlane.example.com',
    value: 'fairlane-verification=abc123',
  }

  it('verifies the exact text among others, split or not', () => {
    expect(compareDnsRecord(token, txt(['x'], ['fairlane-verification=', 'abc123'])).status).toBe('verified')
  })

  it('fails naming what is there', () => {
    expect(compareDnsRecord(token, txt(['fairlane-verification=zzz']))).toEqual({
      status: 'failed',
      reason:
        '_fairlane.example.com has TXT "fairlane-verification=zzz" but not "fairlane-verification=abc123"',
    })
  })
})
