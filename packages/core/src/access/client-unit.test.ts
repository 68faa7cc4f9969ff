import { describe, expect, it } from 'vitest'
import { clientUnitOf } from './client-unit'

describe('clientUnitOf', () => {
  it('counts IPv4 by address, IPv4-mapped IPv6 as its IPv4 address', () => {
    expect(clientUnitOf('192.0.2.7')).toBe('192.0.2.7')
    expect(clientUnitOf('::ffff:192.0.2.7')).toBe('192.0.2.7')
  })

  it('counts IPv6 by /64, however it is spelled', () => {
    expect(clientUnitOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(clientUnitOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64')
    expect(clientUnitOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
  })

  it('puts what is not an address in one shared unit', () => {
    expect(clientUnitOf(undefined)).toBe('unknown')
    expect(clientUnitOf(null)).toBe('unknown')
    expect(clientUnitOf('not-an-ip')).toBe('unknown')
  })
})
