import { getServers } from 'node:dns'
import { isIPv6 } from 'node:net'
import dns2 from 'dns2'
import type { MxRecord, RecordLookup } from './answer'

const { Packet } = dns2
type DnsPacket = InstanceType<typeof Packet>
type DnsResource = DnsPacket['answers'][number]

/** One DNS server to ask: an IP address and its UDP port. */
export interface DnsServerAddress {
  host: string
  port: number
}

/**
 * Reads a `DNS_SERVERS` entry (`127.0.0.1:5353`, `[::1]:53`, a bare address for port 53) or what
 * node:dns's `getServers()` lists (a bare IPv6 address has no brackets there).
 */
export function parseDnsServer(server: string): DnsServerAddress {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(server)
  if (bracketed) return { host: bracketed[1] as string, port: Number(bracketed[2] ?? 53) }
  if (isIPv6(server)) return { host: server, port: 53 }
  const [host, port] = server.split(':')
  if (!host || !/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || (port !== undefined && !/^\d{1,5}$/.test(port)))
    throw new Error(`DNS server ${JSON.stringify(server)}: expected an IP address with an optional port`)
  return { host, port: Number(port ?? 53) }
}

export type AddressType = 'A' | 'AAAA'

export interface DnsQuery {
  mx(name: string): Promise<RecordLookup<MxRecord>>
  addresses(name: string, type: AddressType): Promise<RecordLookup<string>>
}

/**
 * Asks the servers in turn through dns2 (node:dns's `resolveMx` gives no TTLs, and the cache needs
 * them): each server gets `timeoutMs`, and a timeout, a socket error, SERVFAIL or REFUSED moves on to
 * the next one. NOERROR and NXDOMAIN are answers and end the search.
 */
export function createDnsQuery(options: { servers?: readonly string[]; timeoutMs: number }): DnsQuery {
  const configured = options.servers && options.servers.length > 0 ? options.servers : getServers()
  const servers = configured.map(parseDnsServer)
  if (servers.length === 0)
    throw new Error('MX resolver: no DNS servers (DNS_SERVERS unset and none in the system)')
  const clients = servers.map((server) => ({
    label: server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`,
    ask: dns2.UDPClient({
      dns: server.host,
      port: server.port,
      socketType: server.host.includes(':') ? 'udp6' : 'udp4',
      timeout: options.timeoutMs,
    }),
  }))

  async function ask(name: string, type: 'MX' | AddressType): Promise<DnsPacket | { failed: string }> {
    const failures: string[] = []
    for (const client of clients) {
      try {
        const response = await client.ask(name, type)
        const rcode = response.header.rcode
        if (rcode === Packet.RCODE.NOERROR || rcode === Packet.RCODE.NXDOMAIN) return response
        failures.push(`${client.label} answered ${rcodeName(rcode)}`)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        failures.push(
          code === 'ETIMEDOUT'
            ? `${client.label} did not answer within ${options.timeoutMs} ms`
            : `${client.label}: ${(error as Error).message}`,
        )
      }
    }
    return { failed: `${type} lookup of ${name} failed: ${failures.join('; ')}` }
  }

  async function lookup<Record>(
    name: string,
    type: 'MX' | AddressType,
    read: (resource: DnsResource) => Record,
  ): Promise<RecordLookup<Record>> {
    const response = await ask(name, type)
    if ('failed' in response) return { kind: 'failed', reason: response.failed }
    if (response.header.rcode === Packet.RCODE.NXDOMAIN) return { kind: 'nxdomain', ...negativeTtl(response) }
    const wanted = Packet.TYPE[type]
    const records = response.answers.filter((resource) => resource.type === wanted)
    // Every record of the answer counts, a CNAME on the way too: none may be kept past its TTL.
    const ttls = response.answers.map((resource) => resource.ttl)
    const ttlSeconds =
      records.length > 0 ? Math.min(...ttls) : (negativeTtl(response).negativeTtlSeconds ?? null)
    return { kind: 'records', records: records.map(read), ttlSeconds }
  }

  return {
    mx: (name) =>
      lookup(name, 'MX', (resource) => ({
        exchange: resource.exchange ?? '',
        preference: resource.priority ?? 0,
      })),
    addresses: (name, type) => lookup(name, type, (resource) => resource.address ?? ''),
  }
}

/** RFC 2308 §5: a negative answer lives for the smaller of its SOA's TTL and the SOA's minimum field. */
function negativeTtl(response: DnsPacket): { negativeTtlSeconds?: number } {
  const soa = response.authorities.find((resource) => resource.type === Packet.TYPE.SOA)
  if (!soa) return {}
  const minimum = (soa as DnsResource & { minimum?: number }).minimum
  return { negativeTtlSeconds: minimum === undefined ? soa.ttl : Math.min(soa.ttl, minimum) }
}

function rcodeName(rcode: number): string {
  const entry = Object.entries(Packet.RCODE).find(([, value]) => value === rcode)
  return entry ? entry[0] : `RCODE ${rcode}`
}
