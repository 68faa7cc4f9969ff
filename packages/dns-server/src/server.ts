import dns2 from 'dns2'
import { type DnsRecord, type DnsRecordType, dnsKey, splitTxt } from './records'

const { Packet } = dns2
type DnsResource = InstanceType<typeof Packet>['answers'][number]
/** What dns2 3.1 has at run time and its bundled typings lack: promises of its servers' state. */
type DnsServerState = { listening: Promise<unknown>; closed: Promise<unknown> }
/** An answer record without the `toBuffer` the typings ask for: dns2 encodes plain records itself. */
const answer = (record: Omit<DnsResource, 'toBuffer'>) => record as DnsResource

/** How many CNAMEs an answer follows inside the zone before it stops (a loop would otherwise never end). */
const MAX_CNAME_HOPS = 8

export interface DnsServerOptions {
  /** The address to bind, e.g. 127.0.0.1. */
  host: string
  /** UDP port; 0 picks a free one (see `port` on the result). */
  port: number
}

export interface DnsServer {
  /** `<host>:<port>`: what `DNS_SERVERS` (or `Resolver.setServers`) takes. */
  readonly address: string
  readonly port: number
  /** Serves the record from now on (records of one name and type add up, as in a real zone). */
  publish(record: DnsRecord): void
  /** Stops serving every record of `name` (of `type`, when given); says how many went. */
  remove(name: string, type?: DnsRecordType): number
  /** Every record served, in the order published. */
  list(): DnsRecord[]
  close(): Promise<void>
}

/**
 * A small authoritative DNS server (dns2, over UDP) for development and tests: it answers TXT, CNAME,
 * MX, A and AAAA queries with the records published to it and NXDOMAIN for names it has nothing for, so
 * code that looks records up with node:dns goes through a real DNS round trip. A TXT value longer
 * than 255 bytes is sent as several character-strings, as real zones do with DKIM keys. A TXT or MX
 * question for a name that is a CNAME is answered as a real server does: the CNAME, then the
 * target's records when the target is in this zone (SPF on a return-path CNAME needs that).
 */
export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const records = new Map<string, DnsRecord[]>()
  const server = dns2.createServer({
    // dns2 takes the socket type, not the address family of `host`.
    udp: { type: options.host.includes(':') ? 'udp6' : 'udp4' },
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      if (!question) return send(response)
      if (!records.has(dnsKey(question.name))) {
        response.header.rcode = Packet.RCODE.NXDOMAIN
        return send(response)
      }
      let name = question.name
      for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
        const known = records.get(dnsKey(name)) ?? []
        const base = { name, class: Packet.CLASS.IN, ttl: 60 }
        const matching = known.filter((record) => Packet.TYPE[record.type] === question.type)
        for (const record of matching)
          response.answers.push(toAnswer({ ...base, ttl: record.ttl ?? base.ttl }, record))
        const alias = known.find((record) => record.type === 'CNAME')
        if (matching.length > 0 || !alias) break
        response.answers.push(toAnswer({ ...base, ttl: alias.ttl ?? base.ttl }, alias))
        name = alias.value
      }
      send(response)
    },
  })
  const state = server as unknown as DnsServerState
  // A bind error (port in use) comes as an 'error' event, and `listening` then never settles.
  const failed = new Promise<never>((_resolve, reject) => server.once('error', reject))
  const addresses = await Promise.race([
    server.listen({ udp: { port: options.port, address: options.host } }),
    failed,
  ])
  // Later socket errors (a reply to a client that went away) must not take the process down.
  server.on('error', () => {})
  const port = (addresses as { udp?: { port: number } }).udp?.port
  if (!port) throw new Error('DNS server: no UDP port')
  // Bound to every interface, the server is asked on loopback.
  const reachable = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '::1' : options.host
  const hostPart = reachable.includes(':') ? `[${reachable}]` : reachable
  return {
    address: `${hostPart}:${port}`,
    port,
    publish(record) {
      const name = dnsKey(record.name)
      records.set(name, [...(records.get(name) ?? []), record])
    },
    remove(name, type) {
      const before = records.get(dnsKey(name)) ?? []
      const remaining = before.filter((record) => type !== undefined && record.type !== type)
      if (remaining.length > 0) records.set(dnsKey(name), remaining)
      else records.delete(dnsKey(name))
      return before.length - remaining.length
    },
    list() {
      return [...records.values()].flat()
    },
    async close() {
      const closed = state.closed
      server.close()
      await closed
    },
  }
}

function toAnswer(base: { name: string; class: number; ttl: number }, record: DnsRecord): DnsResource {
  const type = Packet.TYPE[record.type]
  if (record.type === 'TXT') return answer({ ...base, type, data: splitTxt(record.value) })
  if (record.type === 'CNAME') return answer({ ...base, type, domain: record.value })
  if (record.type === 'A' || record.type === 'AAAA') return answer({ ...base, type, address: record.value })
  return answer({ ...base, type, exchange: record.value, priority: record.priority ?? 10 })
}
