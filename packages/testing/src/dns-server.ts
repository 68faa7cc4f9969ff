import dns2 from 'dns2'

const { Packet } = dns2
type DnsResource = InstanceType<typeof Packet>['answers'][number]
/** What dns2 3.1 has at run time and its bundled typings lack: promises of its servers' state. */
type DnsServerState = { listening: Promise<unknown>; closed: Promise<unknown> }
/** An answer record without the `toBuffer` the typings ask for: dns2 encodes plain records itself. */
const answer = (record: Omit<DnsResource, 'toBuffer'>) => record as DnsResource

export type TestDnsRecord =
  | { type: 'TXT'; name: string; value: string }
  | { type: 'CNAME'; name: string; value: string }
  | { type: 'MX'; name: string; value: string; priority?: number }

export interface TestDnsServer {
  /** `127.0.0.1:<port>`: what `DNS_SERVERS` (or `Resolver.setServers`) takes. */
  readonly address: string
  /** Serves the record from now on (records of one name and type add up, as in a real zone). */
  publish(record: TestDnsRecord): void
  /** Stops serving every record of `name` (of `type`, when given). */
  remove(name: string, type?: TestDnsRecord['type']): void
  close(): Promise<void>
}

/** DNS names compare case-blind, with or without the root's trailing dot. */
const key = (name: string) => name.toLowerCase().replace(/\.$/, '')

/**
 * A small authoritative DNS server for tests (dns2, over UDP on a free local port): it answers TXT,
 * CNAME and MX queries with the records a test publishes, and NXDOMAIN for names it has nothing for,
 * so verification code resolves through a real DNS round trip. A TXT value longer than 255 bytes is
 * sent as several character-strings, as real zones do with DKIM keys.
 */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, TestDnsRecord[]>()
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      if (!question) return send(response)
      const known = records.get(key(question.name))
      if (!known) {
        response.header.rcode = Packet.RCODE.NXDOMAIN
        return send(response)
      }
      for (const record of known) {
        if (Packet.TYPE[record.type] !== question.type) continue
        const base = {
          name: question.name,
          type: question.type,
          class: Packet.CLASS.IN,
          ttl: 60,
        }
        if (record.type === 'TXT') response.answers.push(answer({ ...base, data: splitTxt(record.value) }))
        else if (record.type === 'CNAME') response.answers.push(answer({ ...base, domain: record.value }))
        else
          response.answers.push(answer({ ...base, exchange: record.value, priority: record.priority ?? 10 }))
      }
      send(response)
    },
  })
  const state = server as unknown as DnsServerState
  const listening = state.listening
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  const addresses = await listening
  const port = (addresses as { udp?: { port: number } }).udp?.port
  if (!port) throw new Error('test DNS server: no UDP port')
  return {
    address: `127.0.0.1:${port}`,
    publish(record) {
      const name = key(record.name)
      records.set(name, [...(records.get(name) ?? []), record])
    },
    remove(name, type) {
      const remaining = (records.get(key(name)) ?? []).filter(
        (record) => type !== undefined && record.type !== type,
      )
      if (remaining.length > 0) records.set(key(name), remaining)
      else records.delete(key(name))
    },
    async close() {
      const closed = state.closed
      server.close()
      await closed
    },
  }
}

/** A TXT value as character-strings of at most 255 bytes (RFC 1035 §3.3.14); the records served are ASCII. */
function splitTxt(value: string): string[] {
  if (!/^[\x20-\x7e]*$/.test(value))
    throw new Error(`test DNS server: TXT values are printable ASCII, not ${JSON.stringify(value)}`)
  const parts: string[] = []
  for (let start = 0; start < value.length; start += 255) parts.push(value.slice(start, start + 255))
  return parts.length > 0 ? parts : ['']
}
