import { describe, expect, it } from 'vitest'
import {
  type AddressLookups,
  hostsFromMx,
  implicitMx,
  type MxHost,
  type MxRecord,
  normalizeDomain,
  type RecordLookup,
  readMxLookup,
  shuffleEqualPreferences,
} from './answer'

const records = <T>(list: T[], ttlSeconds: number | null = 300): RecordLookup<T> => ({
  kind: 'records',
  records: list,
  ttlSeconds,
})
const noRecords = <T>(): RecordLookup<T> => ({ kind: 'records', records: [], ttlSeconds: null })
const failed = <T>(reason = '127.0.0.1:53 did not answer within 2000 ms'): RecordLookup<T> => ({
  kind: 'failed',
  reason,
})
const addresses = (a: string[], aaaa: string[] = [], ttlSeconds = 300): AddressLookups => ({
  a: a.length > 0 ? records(a, ttlSeconds) : noRecords(),
  aaaa: aaaa.length > 0 ? records(aaaa, ttlSeconds) : noRecords(),
})

describe('normalizeDomain', () => {
  it('lowercases, drops the trailing dot and turns an IDN into its A-labels', () => {
    expect(normalizeDomain('Example.COM.')).toEqual({ ok: true, domain: 'example.com' })
    expect(normalizeDomain('bücher.example')).toEqual({ ok: true, domain: 'xn--bcher-kva.example' })
    expect(normalizeDomain('BÜCHER.example')).toEqual({ ok: true, domain: 'xn--bcher-kva.example' })
  })

  it('refuses what is not a domain, naming it', () => {
    for (const input of [
      '',
      '.',
      'a b.example',
      'exa_mple.com',
      '-x.example',
      `${'a'.repeat(64)}.example`,
      'a..b',
    ]) {
      const normalized = normalizeDomain(input)
      expect(normalized.ok, input).toBe(false)
      if (!normalized.ok) expect(normalized.reason).toContain(JSON.stringify(input))
    }
    expect(normalizeDomain(`${'abcd.'.repeat(51)}com`).ok).toBe(false)
  })
})

describe('readMxLookup', () => {
  it('sorts the MX hosts by preference, lowercased and without the trailing dot', () => {
    const step = readMxLookup(
      'shop.test',
      records<MxRecord>([
        { exchange: 'MX2.shop.test.', preference: 20 },
        { exchange: 'mx1.shop.test', preference: 10 },
        { exchange: 'mx3.shop.test', preference: 30 },
      ]),
    )
    expect(step).toEqual({
      next: 'addresses',
      exchanges: [
        { exchange: 'mx1.shop.test', preference: 10 },
        { exchange: 'mx2.shop.test', preference: 20 },
        { exchange: 'mx3.shop.test', preference: 30 },
      ],
      ttlSeconds: 300,
    })
  })

  it('reads a single MX of "." (or the empty name dns2 decodes it to) as a null MX, cached for its TTL', () => {
    for (const exchange of ['', '.']) {
      expect(readMxLookup('nomail.test', records<MxRecord>([{ exchange, preference: 0 }], 3600))).toEqual({
        next: 'done',
        decision: {
          answer: { kind: 'null-mx', domain: 'nomail.test' },
          cacheFor: { kind: 'ttl', seconds: 3600 },
        },
      })
    }
  })

  it('uses the real hosts when a "." stands beside them (RFC 7505 forbids the mix)', () => {
    const step = readMxLookup(
      'mixed.test',
      records<MxRecord>([
        { exchange: '', preference: 0 },
        { exchange: 'mx.mixed.test', preference: 10 },
      ]),
    )
    expect(step).toMatchObject({ next: 'addresses', exchanges: [{ exchange: 'mx.mixed.test' }] })
  })

  it('falls back to the A/AAAA records when there is no MX', () => {
    expect(readMxLookup('bare.test', noRecords())).toEqual({ next: 'implicit' })
  })

  it('says NXDOMAIN names the domain, negative-cached for the SOA minimum when there is one', () => {
    expect(readMxLookup('gone.test', { kind: 'nxdomain', negativeTtlSeconds: 900 })).toEqual({
      next: 'done',
      decision: {
        answer: {
          kind: 'no-such-domain',
          domain: 'gone.test',
          reason: 'gone.test does not exist (NXDOMAIN)',
        },
        cacheFor: { kind: 'negative', seconds: 900 },
      },
    })
    expect(readMxLookup('gone.test', { kind: 'nxdomain' })).toMatchObject({
      decision: { cacheFor: { kind: 'negative', seconds: undefined } },
    })
  })

  it('turns a failed lookup into a temporary answer, never a permanent one', () => {
    expect(readMxLookup('slow.test', failed())).toEqual({
      next: 'done',
      decision: {
        answer: {
          kind: 'temporary',
          domain: 'slow.test',
          reason: '127.0.0.1:53 did not answer within 2000 ms',
        },
        cacheFor: { kind: 'temporary' },
      },
    })
  })
})

describe('hostsFromMx', () => {
  const exchanges: MxRecord[] = [
    { exchange: 'mx1.shop.test', preference: 10 },
    { exchange: 'mx2.shop.test', preference: 20 },
  ]

  it('gives each host its A and AAAA addresses, cached for the smallest TTL of every record used', () => {
    const lookups: Record<string, AddressLookups> = {
      'mx1.shop.test': addresses(['192.0.2.1'], ['2001:db8::1'], 120),
      'mx2.shop.test': addresses(['192.0.2.2'], [], 600),
    }
    expect(hostsFromMx('shop.test', exchanges, 300, (host) => lookups[host] as AddressLookups)).toEqual({
      answer: {
        kind: 'hosts',
        domain: 'shop.test',
        implicit: false,
        hosts: [
          { host: 'mx1.shop.test', preference: 10, addresses: ['192.0.2.1', '2001:db8::1'] },
          { host: 'mx2.shop.test', preference: 20, addresses: ['192.0.2.2'] },
        ],
      },
      cacheFor: { kind: 'ttl', seconds: 120 },
    })
  })

  it('skips a host with no address', () => {
    const lookups: Record<string, AddressLookups> = {
      'mx1.shop.test': { a: { kind: 'nxdomain' }, aaaa: { kind: 'nxdomain' } },
      'mx2.shop.test': addresses(['192.0.2.2']),
    }
    const decision = hostsFromMx('shop.test', exchanges, 300, (host) => lookups[host] as AddressLookups)
    expect(decision.answer).toMatchObject({ kind: 'hosts', hosts: [{ host: 'mx2.shop.test' }] })
    expect(decision.cacheFor).toEqual({ kind: 'ttl', seconds: 300 })
  })

  it('keeps the hosts that resolved when another failed, but remembers that only briefly', () => {
    const lookups: Record<string, AddressLookups> = {
      'mx1.shop.test': { a: failed(), aaaa: failed() },
      'mx2.shop.test': addresses(['192.0.2.2']),
    }
    const decision = hostsFromMx('shop.test', exchanges, 300, (host) => lookups[host] as AddressLookups)
    expect(decision.answer).toMatchObject({ kind: 'hosts', hosts: [{ host: 'mx2.shop.test' }] })
    expect(decision.cacheFor).toEqual({ kind: 'temporary' })
  })

  it('is temporary when no host resolved and a lookup failed', () => {
    const decision = hostsFromMx('shop.test', exchanges, 300, () => ({
      a: failed('timeout'),
      aaaa: noRecords(),
    }))
    expect(decision.answer).toMatchObject({ kind: 'temporary', domain: 'shop.test' })
    expect(decision.answer.kind === 'temporary' && decision.answer.reason).toContain(
      'A of mx1.shop.test: timeout',
    )
  })

  it('is no-such-domain naming the hosts when none has an address', () => {
    const decision = hostsFromMx('shop.test', exchanges, 300, () => addresses([]))
    expect(decision).toEqual({
      answer: {
        kind: 'no-such-domain',
        domain: 'shop.test',
        reason: 'the MX hosts of shop.test (mx1.shop.test, mx2.shop.test) have no A or AAAA address',
      },
      cacheFor: { kind: 'negative' },
    })
  })
})

describe('implicitMx', () => {
  it('makes the domain its own host at preference 0 when it has an address', () => {
    expect(implicitMx('bare.test', addresses(['192.0.2.9'], ['2001:db8::9'], 45))).toEqual({
      answer: {
        kind: 'hosts',
        domain: 'bare.test',
        implicit: true,
        hosts: [{ host: 'bare.test', preference: 0, addresses: ['192.0.2.9', '2001:db8::9'] }],
      },
      cacheFor: { kind: 'ttl', seconds: 45 },
    })
  })

  it('is no-such-domain naming the domain when there is no MX and no address', () => {
    expect(implicitMx('empty.test', addresses([]))).toEqual({
      answer: {
        kind: 'no-such-domain',
        domain: 'empty.test',
        reason: 'empty.test has no MX and no A or AAAA records',
      },
      cacheFor: { kind: 'negative', seconds: undefined },
    })
  })

  it('is temporary when the address lookups failed', () => {
    expect(implicitMx('slow.test', { a: failed(), aaaa: noRecords() }).answer.kind).toBe('temporary')
  })
})

describe('shuffleEqualPreferences', () => {
  const host = (name: string, preference: number): MxHost => ({
    host: name,
    preference,
    addresses: ['192.0.2.1'],
  })
  const hosts = [host('a', 10), host('b', 10), host('c', 10), host('z', 5), host('last', 20)]

  it('keeps preference order and shuffles only equal preferences', () => {
    const seen = new Set<string>()
    let seed = 1
    // A small deterministic generator: the test must not depend on Math.random to pass.
    const random = () => {
      seed = (seed * 16807) % 2147483647
      return seed / 2147483647
    }
    for (let round = 0; round < 200; round++) {
      const order = shuffleEqualPreferences(hosts, random).map((entry) => entry.host)
      expect(order[0]).toBe('z')
      expect(order[4]).toBe('last')
      expect(order.slice(1, 4).sort()).toEqual(['a', 'b', 'c'])
      seen.add(order.slice(1, 4).join(''))
    }
    // Every one of the six orders of the three equal hosts turns up.
    expect(seen.size).toBe(6)
  })

  it('does not change the list it was given', () => {
    const copy = structuredClone(hosts)
    shuffleEqualPreferences(hosts, () => 0.5)
    expect(hosts).toEqual(copy)
  })
})
