import { describe, expect, it } from 'vitest'
import { createMxResolver } from './resolve'

describe('createMxResolver', () => {
  it('refuses a setting out of range, naming it', () => {
    expect(() => createMxResolver({ servers: ['127.0.0.1:53'], timeoutMs: 0 })).toThrow(
      'MX resolver: timeoutMs must be an integer of at least 1; got 0',
    )
    expect(() => createMxResolver({ servers: ['127.0.0.1:53'], maxEntries: 0.5 })).toThrow('maxEntries')
    expect(() => createMxResolver({ servers: ['127.0.0.1:53'], negativeTtlMs: -1 })).toThrow('negativeTtlMs')
    expect(() => createMxResolver({ servers: ['dns.example'] })).toThrow('"dns.example"')
  })

  it('answers a name that is not a domain at once, without asking DNS', async () => {
    // No server listens on port 9 of 127.0.0.1 for DNS: an answer proves nothing was asked.
    const resolver = createMxResolver({ servers: ['127.0.0.1:9'], timeoutMs: 60_000 })
    expect(await resolver.resolve('not a domain')).toEqual({
      kind: 'no-such-domain',
      domain: 'not a domain',
      reason: '"not a domain" is not a valid domain name',
    })
  })
})
