import { parseConfig } from '@fairlane/config'
import { describe, expect, it } from 'vitest'
import { dnsHelpLines, localDnsEnv, sinkDnsAddress } from './local-dns'

describe('the local DNS wiring', () => {
  it('points DNS_SERVERS at the sink, on its HTTP port number unless MAILSINK_DNS_PORT says', () => {
    expect(localDnsEnv(parseConfig({}))).toEqual({ DNS_SERVERS: '127.0.0.1:8025' })
    expect(localDnsEnv(parseConfig({ MAILSINK_HTTP_PORT: '8125' }))).toEqual({
      DNS_SERVERS: '127.0.0.1:8125',
    })
    expect(localDnsEnv(parseConfig({ MAILSINK_DNS_PORT: '5300' }))).toEqual({ DNS_SERVERS: '127.0.0.1:5300' })
    expect(sinkDnsAddress(parseConfig({ HOST: '0.0.0.0' }))).toBe('127.0.0.1:8025')
    expect(sinkDnsAddress(parseConfig({ HOST: '::1' }))).toBe('[::1]:8025')
  })

  it("keeps the user's DNS_SERVERS, and says the sink's server is not asked", () => {
    const config = parseConfig({ DNS_SERVERS: '10.0.0.53' })
    expect(localDnsEnv(config)).toEqual({})
    expect(dnsHelpLines(config, 'http://127.0.0.1:8025')[0]).toBe(
      "  DNS_SERVERS    10.0.0.53 (yours; the sink's own DNS server 127.0.0.1:8025 is not asked)",
    )
  })

  it('prints the server and a curl that publishes a record on the sink', () => {
    const config = parseConfig({ DNS_SERVERS: '127.0.0.1:8025' })
    const lines = dnsHelpLines(config, 'http://127.0.0.1:8025')
    expect(lines[0]).toContain('DNS server     127.0.0.1:8025 (UDP')
    expect(lines.join('\n')).toContain(
      "curl -X POST http://127.0.0.1:8025/dns/records -H 'content-type: application/json'",
    )
  })
})
