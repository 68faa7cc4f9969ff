import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import {
  CLIENT_ADDRESS_HEADER,
  canonicalAddress,
  clientAddress,
  compileProxyTrust,
  stampClientAddress,
  throttleUnitOf,
} from './client-address'

const none = compileProxyTrust([])

describe('clientAddress', () => {
  it('ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(clientAddress({ socketAddress: '203.0.113.9', forwardedFor: '1.2.3.4' }, none)).toBe('203.0.113.9')
    expect(
      clientAddress({ socketAddress: '::ffff:127.0.0.1', forwardedFor: ['1.2.3.4', '5.6.7.8'] }, none),
    ).toBe('127.0.0.1')
  })

  it('walks back through trusted proxies only, from the socket inwards', () => {
    const trust = compileProxyTrust(['10.0.0.0/8'])
    // The proxy at 10.0.0.2 saw 198.51.100.7; what that client claimed before it does not count.
    expect(clientAddress({ socketAddress: '10.0.0.2', forwardedFor: '6.6.6.6, 198.51.100.7' }, trust)).toBe(
      '198.51.100.7',
    )
    // Two trusted hops: the second proxy's own entry is skipped too.
    expect(
      clientAddress({ socketAddress: '10.0.0.2', forwardedFor: '6.6.6.6, 198.51.100.7, 10.1.1.1' }, trust),
    ).toBe('198.51.100.7')
    // An untrusted socket's forwarding is never believed.
    expect(clientAddress({ socketAddress: '198.51.100.7', forwardedFor: '10.0.0.5' }, trust)).toBe(
      '198.51.100.7',
    )
    // A trusted proxy that forwarded nothing is itself the client.
    expect(clientAddress({ socketAddress: '10.0.0.2', forwardedFor: undefined }, trust)).toBe('10.0.0.2')
  })

  it('understands the named ranges and IPv6', () => {
    const trust = compileProxyTrust(['loopback'])
    expect(clientAddress({ socketAddress: '::1', forwardedFor: '2001:DB8::1' }, trust)).toBe('2001:db8::1')
    expect(clientAddress({ socketAddress: undefined, forwardedFor: '1.2.3.4' }, trust)).toBeNull()
  })

  it('refuses entries that are not addresses', () => {
    expect(() => compileProxyTrust(['proxy.internal'])).toThrow(/invalid IP address/)
  })
})

describe('throttleUnitOf', () => {
  it('counts IPv4 by address and IPv6 by /64', () => {
    expect(throttleUnitOf('198.51.100.7')).toBe('198.51.100.7')
    expect(throttleUnitOf('::ffff:198.51.100.7')).toBe('198.51.100.7')
    expect(throttleUnitOf('2001:db8:1:2:aaaa::1')).toBe(throttleUnitOf('2001:0db8:0001:0002:ffff::9'))
    expect(throttleUnitOf('2001:db8:1:3::1')).not.toBe(throttleUnitOf('2001:db8:1:2::1'))
    expect(throttleUnitOf(null)).toBe('unknown')
    expect(throttleUnitOf('not-an-ip')).toBe('unknown')
    expect(canonicalAddress('nonsense')).toBeNull()
  })
})

describe('stampClientAddress', () => {
  function fakeRequest(socketAddress: string, headers: [string, string][]): IncomingMessage {
    const rawHeaders = headers.flat()
    const lower: Record<string, string> = {}
    for (const [name, value] of headers) lower[name.toLowerCase()] = value
    return {
      socket: { remoteAddress: socketAddress },
      rawHeaders,
      headers: lower,
    } as unknown as IncomingMessage
  }

  it('replaces a forged client-address header in both header views', () => {
    const req = fakeRequest('203.0.113.9', [
      ['Host', 'x'],
      ['X-Fairlane-Client-IP', '1.1.1.1'],
      ['x-forwarded-for', '2.2.2.2'],
      ['x-fairlane-client-ip', '3.3.3.3'],
    ])
    stampClientAddress(req, none)
    expect(req.headers[CLIENT_ADDRESS_HEADER]).toBe('203.0.113.9')
    expect(req.rawHeaders).toEqual([
      'Host',
      'x',
      'x-forwarded-for',
      '2.2.2.2',
      CLIENT_ADDRESS_HEADER,
      '203.0.113.9',
    ])
  })
})
