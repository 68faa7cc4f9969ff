import { createSocket, type Socket } from 'node:dgram'
import { startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import dns2 from 'dns2'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMxResolver, type MxResolverOptions } from './resolve'

let dns: TestDnsServer
const sockets: Socket[] = []

beforeAll(async () => {
  dns = await startTestDnsServer()
})
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close()
})
afterAll(async () => {
  await dns?.close()
})

/** A clock the test moves by hand, so TTLs expire without waiting. */
function manualClock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

async function bind(socket: Socket): Promise<string> {
  sockets.push(socket)
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  return `127.0.0.1:${socket.address().port}`
}

/** A DNS server that reads every query and answers none: what a dead or firewalled resolver looks like. */
async function startSilentServer() {
  const received: string[] = []
  const socket = createSocket('udp4')
  socket.on('message', (message) => received.push(questionName(message)))
  return { address: await bind(socket), received }
}

/** A DNS server that answers every query SERVFAIL, as a resolver does when the zone's servers fail it. */
async function startFailingServer() {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request)
      response.header.rcode = dns2.Packet.RCODE.SERVFAIL
      send(response)
    },
  })
  const listening = (await server.listen({ udp: { port: 0, address: '127.0.0.1' } })) as {
    udp?: { port: number }
  }
  return { address: `127.0.0.1:${listening.udp?.port}`, close: () => server.close() }
}

/** Passes queries on to the test DNS server and counts them, so a test can see what was asked. */
async function startCountingProxy() {
  const asked: string[] = []
  const socket = createSocket('udp4')
  const [upstreamHost, upstreamPort] = dns.address.split(':') as [string, string]
  socket.on('message', (query, client) => {
    asked.push(`${questionName(query)} ${questionType(query)}`)
    const upstream = createSocket('udp4')
    upstream.on('message', (reply) => {
      socket.send(reply, client.port, client.address)
      upstream.close()
    })
    upstream.send(query, Number(upstreamPort), upstreamHost)
  })
  return { address: await bind(socket), asked }
}

// The question's name and type, read from the wire (RFC 1035 §4.1.2): labels from byte 12 on.
function questionName(message: Buffer): string {
  const labels: string[] = []
  let offset = 12
  while (message[offset]) {
    const length = message[offset] as number
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'))
    offset += length + 1
  }
  return labels.join('.')
}
function questionType(message: Buffer): string {
  let offset = 12
  while (message[offset]) offset += (message[offset] as number) + 1
  const type = message.readUInt16BE(offset + 1)
  return ({ 1: 'A', 15: 'MX', 28: 'AAAA' } as Record<number, string>)[type] ?? String(type)
}

const resolverFor = (options: MxResolverOptions = {}) =>
  createMxResolver({ servers: [dns.address], timeoutMs: 2_000, ...options })

describe('createMxResolver against a real DNS server', () => {
  it('answers the MX hosts in preference order with their A and AAAA addresses, skipping a host with none', async () => {
    dns.publish({ type: 'MX', name: 'order.test', value: 'backup.order.test', priority: 20 })
    dns.publish({ type: 'MX', name: 'order.test', value: 'primary.order.test', priority: 10 })
    dns.publish({ type: 'MX', name: 'order.test', value: 'nowhere.order.test', priority: 5 })
    dns.publish({ type: 'A', name: 'primary.order.test', value: '127.0.0.10' })
    dns.publish({ type: 'AAAA', name: 'primary.order.test', value: '::1' })
    dns.publish({ type: 'A', name: 'backup.order.test', value: '127.0.0.11' })

    expect(await resolverFor().resolve('Order.Test.')).toEqual({
      kind: 'hosts',
      domain: 'order.test',
      implicit: false,
      hosts: [
        { host: 'primary.order.test', preference: 10, addresses: ['127.0.0.10', '::1'] },
        { host: 'backup.order.test', preference: 20, addresses: ['127.0.0.11'] },
      ],
    })
  })

  it('falls back to the domain itself when it has no MX but an A record', async () => {
    dns.publish({ type: 'A', name: 'bare.test', value: '127.0.0.12' })
    expect(await resolverFor().resolve('bare.test')).toEqual({
      kind: 'hosts',
      domain: 'bare.test',
      implicit: true,
      hosts: [{ host: 'bare.test', preference: 0, addresses: ['127.0.0.12'] }],
    })
  })

  it('reads a null MX, and says no-such-domain, naming the domain, for NXDOMAIN or no MX and no address', async () => {
    dns.publish({ type: 'MX', name: 'nomail.test', value: '.', priority: 0 })
    dns.publish({ type: 'TXT', name: 'textonly.test', value: 'v=spf1 -all' })
    const resolver = resolverFor()
    expect(await resolver.resolve('nomail.test')).toEqual({ kind: 'null-mx', domain: 'nomail.test' })
    expect(await resolver.resolve('absent.test')).toEqual({
      kind: 'no-such-domain',
      domain: 'absent.test',
      reason: 'absent.test does not exist (NXDOMAIN)',
    })
    expect(await resolver.resolve('textonly.test')).toEqual({
      kind: 'no-such-domain',
      domain: 'textonly.test',
      reason: 'textonly.test has no MX and no A or AAAA records',
    })
  })

  it('looks an IDN up in its A-label form', async () => {
    dns.publish({ type: 'MX', name: 'xn--bcher-kva.test', value: 'mx.xn--bcher-kva.test', priority: 10 })
    dns.publish({ type: 'A', name: 'mx.xn--bcher-kva.test', value: '127.0.0.13' })
    expect(await resolverFor().resolve('bücher.test')).toMatchObject({
      kind: 'hosts',
      domain: 'xn--bcher-kva.test',
      hosts: [{ host: 'mx.xn--bcher-kva.test', addresses: ['127.0.0.13'] }],
    })
  })

  it('keeps an answer for the smallest TTL of its records, then asks again', async () => {
    dns.publish({ type: 'MX', name: 'ttl.test', value: 'mx.ttl.test', priority: 10, ttl: 300 })
    dns.publish({ type: 'A', name: 'mx.ttl.test', value: '127.0.0.20', ttl: 30 })
    const clock = manualClock()
    const proxy = await startCountingProxy()
    const resolver = createMxResolver({ servers: [proxy.address], timeoutMs: 2_000, clock })
    const addresses = async () => {
      const answer = await resolver.resolve('ttl.test')
      return answer.kind === 'hosts' ? answer.hosts.flatMap((host) => host.addresses) : answer
    }
    expect(await addresses()).toEqual(['127.0.0.20'])
    const askedOnce = proxy.asked.length
    expect(askedOnce).toBe(3) // MX, then A and AAAA of the one host

    dns.remove('mx.ttl.test', 'A')
    dns.publish({ type: 'A', name: 'mx.ttl.test', value: '127.0.0.21', ttl: 30 })
    clock.advance(29_999)
    expect(await addresses()).toEqual(['127.0.0.20'])
    expect(proxy.asked).toHaveLength(askedOnce)
    clock.advance(1)
    expect(await addresses()).toEqual(['127.0.0.21'])
    expect(proxy.asked).toHaveLength(askedOnce * 2)
  })

  it('remembers a missing domain for the negative TTL, then sees it once it exists', async () => {
    const clock = manualClock()
    const resolver = resolverFor({ clock, negativeTtlMs: 60_000 })
    expect(await resolver.resolve('later.test')).toMatchObject({ kind: 'no-such-domain' })
    dns.publish({ type: 'A', name: 'later.test', value: '127.0.0.22' })
    clock.advance(59_999)
    expect(await resolver.resolve('later.test')).toMatchObject({ kind: 'no-such-domain' })
    clock.advance(1)
    expect(await resolver.resolve('later.test')).toMatchObject({ kind: 'hosts', implicit: true })
  })

  it('shares one set of queries between concurrent lookups of one domain', async () => {
    dns.publish({ type: 'MX', name: 'busy.test', value: 'mx.busy.test', priority: 10 })
    dns.publish({ type: 'A', name: 'mx.busy.test', value: '127.0.0.23' })
    const proxy = await startCountingProxy()
    const resolver = createMxResolver({ servers: [proxy.address], timeoutMs: 2_000 })
    const answers = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve('busy.test')))
    expect(new Set(answers.map((answer) => answer.kind))).toEqual(new Set(['hosts']))
    expect(proxy.asked.sort()).toEqual(['busy.test MX', 'mx.busy.test A', 'mx.busy.test AAAA'])
  })

  it('answers temporary within the timeout when the DNS server does not answer, and asks it again only later', async () => {
    const silent = await startSilentServer()
    const clock = manualClock()
    const resolver = createMxResolver({
      servers: [silent.address],
      timeoutMs: 300,
      clock,
      temporaryTtlMs: 5_000,
    })
    const started = performance.now()
    const answers = await Promise.all([resolver.resolve('dead.test'), resolver.resolve('dead.test')])
    const elapsedMs = performance.now() - started
    for (const answer of answers) {
      expect(answer).toMatchObject({ kind: 'temporary', domain: 'dead.test' })
      expect(answer.kind === 'temporary' && answer.reason).toContain(
        `${silent.address} did not answer within 300 ms`,
      )
    }
    expect(elapsedMs).toBeGreaterThanOrEqual(290)
    expect(elapsedMs).toBeLessThan(2_000)
    expect(silent.received).toEqual(['dead.test'])

    // A burst of mail to the dead domain is answered from the cache, then DNS is asked again.
    expect(await resolver.resolve('dead.test')).toMatchObject({ kind: 'temporary' })
    expect(silent.received).toHaveLength(1)
    clock.advance(5_000)
    expect(await resolver.resolve('dead.test')).toMatchObject({ kind: 'temporary' })
    expect(silent.received).toHaveLength(2)
  })

  it('asks the next server when one does not answer', async () => {
    dns.publish({ type: 'A', name: 'second.test', value: '127.0.0.24' })
    const silent = await startSilentServer()
    const resolver = createMxResolver({ servers: [silent.address, dns.address], timeoutMs: 200 })
    expect(await resolver.resolve('second.test')).toMatchObject({ kind: 'hosts', implicit: true })
    expect(silent.received.length).toBeGreaterThan(0)
  })

  it('reads SERVFAIL as temporary, naming it, and asks the next server', async () => {
    dns.publish({ type: 'A', name: 'servfail.test', value: '127.0.0.26' })
    const failing = await startFailingServer()
    try {
      const alone = await createMxResolver({ servers: [failing.address], timeoutMs: 2_000 }).resolve(
        'servfail.test',
      )
      expect(alone).toMatchObject({ kind: 'temporary', domain: 'servfail.test' })
      expect(alone.kind === 'temporary' && alone.reason).toContain(`${failing.address} answered SERVFAIL`)
      const withNext = createMxResolver({ servers: [failing.address, dns.address], timeoutMs: 2_000 })
      expect(await withNext.resolve('servfail.test')).toMatchObject({ kind: 'hosts', implicit: true })
    } finally {
      failing.close()
    }
  })

  it('forgets the least recently used domain past maxEntries', async () => {
    for (const name of ['one', 'two', 'three'])
      dns.publish({ type: 'A', name: `${name}.lru.test`, value: '127.0.0.25' })
    const proxy = await startCountingProxy()
    const resolver = createMxResolver({ servers: [proxy.address], timeoutMs: 2_000, maxEntries: 2 })
    await resolver.resolve('one.lru.test')
    await resolver.resolve('two.lru.test')
    await resolver.resolve('one.lru.test') // one is now the most recently used
    await resolver.resolve('three.lru.test') // two goes
    const mxQuestions = () => proxy.asked.filter((question) => question.endsWith(' MX'))
    expect(mxQuestions()).toEqual(['one.lru.test MX', 'two.lru.test MX', 'three.lru.test MX'])
    await resolver.resolve('one.lru.test')
    expect(mxQuestions()).toHaveLength(3)
    await resolver.resolve('two.lru.test')
    expect(mxQuestions()).toHaveLength(4)
  })
})
