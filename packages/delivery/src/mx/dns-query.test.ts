import { describe, expect, it } from 'vitest'
import { parseDnsServer } from './dns-query'

describe('parseDnsServer', () => {
  it('reads DNS_SERVERS entries and what node:dns getServers() lists', () => {
    expect(parseDnsServer('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 })
    expect(parseDnsServer('9.9.9.9')).toEqual({ host: '9.9.9.9', port: 53 })
    expect(parseDnsServer('[::1]:5353')).toEqual({ host: '::1', port: 5353 })
    expect(parseDnsServer('[2001:4860:4860::8888]')).toEqual({ host: '2001:4860:4860::8888', port: 53 })
    expect(parseDnsServer('2001:4860:4860::8888')).toEqual({ host: '2001:4860:4860::8888', port: 53 })
  })

  it('refuses what is not an address, naming it', () => {
    expect(() => parseDnsServer('dns.example:53')).toThrow('"dns.example:53"')
    expect(() => parseDnsServer('127.0.0.1:port')).toThrow('"127.0.0.1:port"')
  })
})
