import { describe, expect, it } from 'vitest'
import { parseDnsRecord, splitTxt } from './records'

describe('parseDnsRecord', () => {
  it('reads TXT, CNAME and MX records, any case of type', () => {
    expect(
      parseDnsRecord({ type: 'txt', name: 'fl1._domainkey.shop.test', value: 'v=DKIM1; p=abc' }),
    ).toEqual({
      ok: true,
      value: { type: 'TXT', name: 'fl1._domainkey.shop.test', value: 'v=DKIM1; p=abc' },
    })
    expect(
      parseDnsRecord({ type: 'CNAME', name: 'fl-bounces.shop.test.', value: 'bounces.fairlane.localhost' })
        .ok,
    ).toBe(true)
    expect(parseDnsRecord({ type: 'MX', name: 'shop.test', value: 'mx.shop.test', priority: 5 })).toEqual({
      ok: true,
      value: { type: 'MX', name: 'shop.test', value: 'mx.shop.test', priority: 5 },
    })
  })

  it('reads A and AAAA records and refuses an address of the wrong family', () => {
    expect(parseDnsRecord({ type: 'a', name: 'x.test', value: '127.0.0.1' })).toEqual({
      ok: true,
      value: { type: 'A', name: 'x.test', value: '127.0.0.1' },
    })
    expect(parseDnsRecord({ type: 'AAAA', name: 'x.test', value: '::1' })).toMatchObject({ ok: true })
    expect(parseDnsRecord({ type: 'AAAA', name: 'x.test', value: '127.0.0.1' })).toMatchObject({
      ok: false,
      field: 'value',
    })
  })

  it('reads a null MX (RFC 7505) and a TTL per record', () => {
    expect(parseDnsRecord({ type: 'MX', name: 'nomail.test', value: '.', priority: 0 })).toEqual({
      ok: true,
      value: { type: 'MX', name: 'nomail.test', value: '.', priority: 0 },
    })
    expect(parseDnsRecord({ type: 'A', name: 'x.test', value: '127.0.0.1', ttl: 5 })).toEqual({
      ok: true,
      value: { type: 'A', name: 'x.test', value: '127.0.0.1', ttl: 5 },
    })
    // Only an MX may point at the root.
    expect(parseDnsRecord({ type: 'CNAME', name: 'x.test', value: '.' })).toMatchObject({ field: 'value' })
  })

  it('names the field that is wrong', () => {
    const field = (input: unknown) => {
      const parsed = parseDnsRecord(input)
      return parsed.ok ? null : parsed.field
    }
    expect(field(null)).toBe('body')
    expect(field([])).toBe('body')
    expect(field({ type: 'SRV', name: 'shop.test', value: 'x' })).toBe('type')
    expect(field({ name: 'shop.test', value: 'x' })).toBe('type')
    expect(field({ type: 'TXT', name: 'bad name.test', value: 'x' })).toBe('name')
    expect(field({ type: 'TXT', name: `${'a'.repeat(64)}.test`, value: 'x' })).toBe('name')
    expect(field({ type: 'TXT', name: `${'abc.'.repeat(64)}test`, value: 'x' })).toBe('name')
    expect(field({ type: 'TXT', name: 'shop.test', value: 42 })).toBe('value')
    expect(field({ type: 'TXT', name: 'shop.test', value: 'caf\u00e9' })).toBe('value')
    expect(field({ type: 'CNAME', name: 'a.shop.test', value: 'not a host' })).toBe('value')
    expect(field({ type: 'MX', name: 'shop.test', value: 'mx.shop.test', priority: -1 })).toBe('priority')
    expect(field({ type: 'A', name: 'x.test', value: '127.0.0.1', ttl: -1 })).toBe('ttl')
    expect(field({ type: 'A', name: 'x.test', value: '127.0.0.1', ttl: 1.5 })).toBe('ttl')
    expect(field({ type: 'A', name: 'x.test', value: '127.0.0.1', ttl: '60' })).toBe('ttl')
  })
})

describe('splitTxt', () => {
  it('cuts a long value into 255-byte character-strings', () => {
    expect(splitTxt('a'.repeat(600)).map((part) => part.length)).toEqual([255, 255, 90])
    expect(splitTxt('')).toEqual([''])
  })
})
