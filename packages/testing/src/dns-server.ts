import { type DnsRecord, type DnsRecordType, startDnsServer } from '@fairlane/dns-server'

export type TestDnsRecord = DnsRecord

export interface TestDnsServer {
  /** `127.0.0.1:<port>`: what `DNS_SERVERS` (or `Resolver.setServers`) takes. */
  readonly address: string
  /** Serves the record from now on (records of one name and type add up, as in a real zone). */
  publish(record: TestDnsRecord): void
  /** Stops serving every record of `name` (of `type`, when given). */
  remove(name: string, type?: DnsRecordType): void
  close(): Promise<void>
}

/**
 * A real authoritative DNS server for a test (@fairlane/dns-server, the one the mail sink runs for
 * local use) on a free UDP port of 127.0.0.1, so verification code resolves through a real DNS round trip.
 */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  return startDnsServer({ host: '127.0.0.1', port: 0 })
}
