import { describe, expect, it } from 'vitest'
import { filterAllowed, isPrivateAddress, privateAddressReason } from './private-address'

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, CGNAT, unspecified and unique-local addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '0.1.2.3',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
  })

  it('allows public unicast addresses, the neighbours of the private ranges included', () => {
    for (const address of [
      '8.8.8.8',
      '142.250.27.27',
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '11.0.0.1',
      '2607:f8b0:4004:c1b::1a',
      '::ffff:8.8.8.8',
    ]) {
      expect(isPrivateAddress(address), address).toBe(false)
    }
  })

  it('refuses what is not an address, saying so', () => {
    expect(isPrivateAddress('mx.example.com')).toBe(true)
    expect(privateAddressReason('mx.example.com')).toBe('mx.example.com is not an IP address')
    expect(privateAddressReason('::ffff:127.0.0.1')).toBe('127.0.0.1 is a loopback address, not a public one')
  })
})

describe('filterAllowed', () => {
  const hosts = [
    { host: 'mx1.inward.test', preference: 10, addresses: ['127.0.0.10', '10.0.0.1'] },
    { host: 'mx2.inward.test', preference: 20, addresses: ['192.168.0.5', '8.8.4.4'] },
  ]

  it('takes out private addresses, lists them with why, and drops a host left with none', () => {
    expect(filterAllowed(hosts, { allowPrivate: false })).toEqual({
      hosts: [{ host: 'mx2.inward.test', preference: 20, addresses: ['8.8.4.4'] }],
      refused: [
        {
          host: 'mx1.inward.test',
          address: '127.0.0.10',
          reason: '127.0.0.10 is a loopback address, not a public one',
        },
        {
          host: 'mx1.inward.test',
          address: '10.0.0.1',
          reason: '10.0.0.1 is a private network address, not a public one',
        },
        {
          host: 'mx2.inward.test',
          address: '192.168.0.5',
          reason: '192.168.0.5 is a private network address, not a public one',
        },
      ],
    })
  })

  it('allows everything with MX_ALLOW_PRIVATE', () => {
    expect(filterAllowed(hosts, { allowPrivate: true })).toEqual({ hosts, refused: [] })
  })
})
