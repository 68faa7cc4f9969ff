import { describe, expect, it } from 'vitest'
import { checkDomainName } from './domain-name'

function message(input: string): string {
  const check = checkDomainName(input)
  if (check.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused, got ${check.name}`)
  return check.message
}

describe('checkDomainName', () => {
  it('accepts registrable domains and names below them', () => {
    for (const name of ['example.com', 'mail.example.com', 'example.co.uk', 'a.b.example.co.uk', 'x-1.io']) {
      expect(checkDomainName(name), name).toEqual({ ok: true, name })
    }
  })

  it('accepts names under reserved test TLDs (the test DNS server serves them)', () => {
    expect(checkDomainName('example.test')).toEqual({ ok: true, name: 'example.test' })
  })

  it('normalises case, surrounding spaces and one trailing dot', () => {
    expect(checkDomainName('  Mail.Example.COM. ')).toEqual({ ok: true, name: 'mail.example.com' })
  })

  it('converts internationalised names to punycode', () => {
    expect(checkDomainName('Bücher.DE')).toEqual({ ok: true, name: 'xn--bcher-kva.de' })
    expect(checkDomainName('例え.jp')).toEqual({ ok: true, name: 'xn--r8jz45g.jp' })
    expect(checkDomainName('xn--bcher-kva.de')).toEqual({ ok: true, name: 'xn--bcher-kva.de' })
  })

  it('refuses IP addresses, including ones the URL parser would decode', () => {
    for (const ip of ['192.0.2.1', '::1', '[::1]', '2001:db8::1', '0x7f.1', '127.1']) {
      expect(message(ip), ip).toMatch(/IP address/)
    }
  })

  it('refuses localhost and names under it', () => {
    expect(message('localhost')).toBe('domain name "localhost" is a local name, not a public domain')
    expect(message('acme.localhost')).toMatch(/local name/)
    expect(message('LOCALHOST.')).toMatch(/local name/)
  })

  it('refuses single labels', () => {
    expect(message('intranet')).toBe(
      'domain name "intranet" is a single label; use a domain such as example.com',
    )
  })

  it('refuses public suffixes, ICANN and private ones', () => {
    expect(message('com')).toMatch(/single label/)
    expect(message('co.uk')).toBe(
      'domain name "co.uk" is a public suffix; use a domain registered under it, such as example.co.uk',
    )
    for (const suffix of ['CO.UK.', 'github.io', 'com.au'])
      expect(message(suffix), suffix).toMatch(/public suffix/)
    expect(checkDomainName('someone.github.io')).toEqual({ ok: true, name: 'someone.github.io' })
  })

  it('refuses names over 253 characters and labels over 63', () => {
    const label63 = 'a'.repeat(63)
    const name253 = `${label63}.${label63}.${label63}.${'b'.repeat(57)}.com`
    expect(name253).toHaveLength(253)
    expect(checkDomainName(name253)).toEqual({ ok: true, name: name253 })
    expect(message(`x${name253}`)).toMatch(/longer than 253 characters/)
    expect(checkDomainName(`${label63}.com`).ok).toBe(true)
    expect(message(`${label63}a.com`)).toMatch(/label longer than 63 characters/)
    expect(message('a'.repeat(5000))).toMatch(/longer than 253/)
  })

  it('counts the punycode form against the limits', () => {
    // 61 characters in Unicode, more than 63 once encoded as xn--…
    const label = `${'a'.repeat(60)}ä`
    expect(label).toHaveLength(61)
    expect(message(`${label}.de`)).toMatch(/label longer than 63 characters/)
  })

  it('refuses invalid characters, naming the first one', () => {
    expect(message('exa_mple.com')).toBe('domain name "exa_mple.com" contains an invalid character "_"')
    for (const bad of [
      'ex ample.com',
      'ex%61mple.com',
      'a@b.com',
      'a/b.com',
      'exa\u0000mple.com',
      'a*.com',
    ]) {
      expect(message(bad), bad).toMatch(/invalid character/)
    }
  })

  it('refuses empty labels and labels starting or ending with a hyphen', () => {
    expect(message('')).toBe('domain name is empty')
    expect(message('.')).toBe('domain name is empty')
    for (const bad of ['a..com', '.example.com', '-a.com', 'a-.com', 'example.com..']) {
      expect(checkDomainName(bad).ok, bad).toBe(false)
    }
    expect(message('-a.com')).toMatch(/invalid label "-a"/)
  })

  it('refuses a numeric top-level domain', () => {
    expect(message('example.123')).toMatch(/numeric top-level domain/)
  })
})
