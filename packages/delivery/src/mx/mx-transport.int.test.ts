import { createPrivateKey, randomUUID } from 'node:crypto'
import { dkimRecordValue, generateDkimKeyPair } from '@fairlane/core'
import { OutcomeUnknownSendError, type OutgoingMail } from '@fairlane/core/delivery'
import { PermanentSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import { type MailSink, startMailSink } from '@fairlane/mailsink/sink'
import { eventually, freePort, startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import pino from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMxTransport, type MxAnswer, type MxTransport, type MxTransportOptions } from './mx-transport'
import { isMxSendFailure, type MxSendFailure } from './smtp-failure'
import { MX_TEST_CERT, MX_TEST_KEY } from './test-support/mx-certificate'
import {
  type RecordingReceiver,
  type ScriptedServer,
  startGreetingReplyServer,
  startRecordingReceiver,
  startSilentServer,
} from './test-support/receivers'

/**
 * The MX transport against real SMTP servers on loopback addresses, all on one port (MX_PORT is one
 * port for every host): the mail sink (DKIM checked against a real DNS server) and small servers that
 * record source addresses, refuse, hang, throttle at the greeting or offer STARTTLS.
 */
const SINK = '127.0.0.20'
const REFUSING = '127.0.0.21'
const SILENT = '127.0.0.22'
const THROTTLING = '127.0.0.23'
const RECORDER = '127.0.0.24'
const TLS_RECEIVER = '127.0.0.25'
const BROKEN_TLS = '127.0.0.26'
const EGRESS = '127.0.0.2'

const SENDER_DOMAIN = 'shop.test'
const SELECTOR = 'fl202612mx'
const GREETING_TIMEOUT_MS = 400
const BUSY_REPLY =
  '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages'

let port: number
let dns: TestDnsServer
let sink: MailSink
let recorder: RecordingReceiver
let tlsReceiver: RecordingReceiver
let brokenTls: RecordingReceiver
let silent: ScriptedServer
let throttling: ScriptedServer
let privateKey: ReturnType<typeof createPrivateKey>

beforeAll(async () => {
  port = await freePort()
  dns = await startTestDnsServer()
  const key = await generateDkimKeyPair()
  privateKey = createPrivateKey(key.privateKeyPem)
  dns.publish({
    type: 'TXT',
    name: `${SELECTOR}._domainkey.${SENDER_DOMAIN}`,
    value: dkimRecordValue(key.publicKey),
  })
  sink = await startMailSink({
    host: SINK,
    smtpPort: port,
    httpPort: 0,
    maxMessages: 1_000,
    logger: pino({ level: 'silent' }),
    dnsServers: [dns.address],
  })
  ;[recorder, tlsReceiver, brokenTls, silent, throttling] = await Promise.all([
    startRecordingReceiver(RECORDER, port, { refuseRecipients: { 'busy@example.test': BUSY_REPLY } }),
    startRecordingReceiver(TLS_RECEIVER, port, { tls: { key: MX_TEST_KEY, cert: MX_TEST_CERT } }),
    // No client of today accepts TLS 1.0: the handshake fails after the server said 220 to STARTTLS.
    startRecordingReceiver(BROKEN_TLS, port, {
      tls: { key: MX_TEST_KEY, cert: MX_TEST_CERT, maxVersion: 'TLSv1' },
    }),
    startSilentServer(SILENT, port),
    startGreetingReplyServer(
      THROTTLING,
      port,
      '421 4.7.0 [TSS04] Messages from 127.0.0.2 temporarily deferred',
    ),
  ])
})

afterAll(async () => {
  await Promise.all([
    sink?.close(),
    dns?.close(),
    recorder?.close(),
    tlsReceiver?.close(),
    brokenTls?.close(),
    silent?.close(),
    throttling?.close(),
  ])
})

const transports: MxTransport[] = []
afterEach(() => {
  for (const transport of transports.splice(0)) transport.close()
})

/** An in-memory resolver: each domain's answer as the test sets it. */
function resolverFor(answers: Record<string, MxAnswer>): MxTransportOptions['resolver'] {
  return {
    async resolve(domain) {
      return answers[domain] ?? { kind: 'no-such-domain', domain, reason: 'NXDOMAIN' }
    },
  }
}

/** MX hosts in preference order, one address each. */
function hosts(domain: string, ...entries: Array<[host: string, address: string]>): MxAnswer {
  return {
    kind: 'hosts',
    domain,
    implicit: false,
    hosts: entries.map(([host, address], index) => ({
      host,
      preference: (index + 1) * 10,
      addresses: [address],
    })),
  }
}

function transport(
  answers: Record<string, MxAnswer>,
  overrides: Partial<MxTransportOptions> = {},
): MxTransport {
  const created = createMxTransport({
    resolver: resolverFor(answers),
    // Stands in for isPrivateAddress (mx/private-address.ts): loopback is private.
    isPrivate: (address) => address.startsWith('127.'),
    allowPrivate: true,
    port,
    heloName: 'mta.fairlane.test',
    tls: 'opportunistic',
    connectionsPerHost: 2,
    messagesPerConnection: 100,
    timeouts: { connectionMs: 2_000, greetingMs: GREETING_TIMEOUT_MS, socketMs: 3_000 },
    ...overrides,
  })
  transports.push(created)
  return created
}

function mail(to: string, subject = `mx ${randomUUID()}`): OutgoingMail {
  return {
    from: { name: 'Shop News', address: `news@${SENDER_DOMAIN}` },
    to,
    // The VERP return path: the bounce names the message.
    envelope: { from: `rp-${randomUUID().slice(0, 8)}@fl-bounces.${SENDER_DOMAIN}`, to },
    dkim: { domainName: SENDER_DOMAIN, keySelector: SELECTOR, privateKey },
    subject,
    text: `Hello: ${subject}`,
    html: `<p>Hello: ${subject}</p>`,
    messageId: `<${randomUUID()}@${SENDER_DOMAIN}>`,
    headers: {},
  }
}

async function failureOf(promise: Promise<unknown>): Promise<MxSendFailure> {
  const error = await promise.then(
    () => {
      throw new Error('expected the send to fail')
    },
    (caught: unknown) => caught,
  )
  if (!isMxSendFailure(error)) throw error
  return error
}

interface SinkMessage {
  subject: string
  envelope: { from: string; to: string[] }
  headers: Record<string, string>
  auth: { dkim: string; dkimDomain?: string }
}

/** The sink's messages with this subject (its HTTP API waits for each message's DKIM verdict). */
async function atSink(subject: string): Promise<SinkMessage[]> {
  const response = await fetch(`http://${SINK}:${sink.httpPort}/messages`)
  const messages = (await response.json()) as SinkMessage[]
  return messages.filter((message) => message.subject === subject)
}

describe('MX delivery to the sink', () => {
  it('delivers DKIM-signed mail with its VERP envelope to the domain MX host', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', SINK]) })
    const message = mail('reader@example.test')
    const handOff = await mx.send(message)
    expect(handOff).toMatchObject({ host: 'mx.example.test', address: SINK, tls: 'none' })
    expect(handOff.response).toMatch(/^250 /)
    const [stored, ...others] = await atSink(message.subject)
    expect(others).toEqual([])
    expect(stored?.envelope).toEqual({ from: message.envelope.from, to: ['reader@example.test'] })
    expect(stored?.headers['dkim-signature']).toContain(`d=${SENDER_DOMAIN}`)
    expect(stored?.auth).toMatchObject({ dkim: 'pass', dkimDomain: SENDER_DOMAIN })
  })

  it('falls back to the next MX host when the first one refuses the connection', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', REFUSING], ['mx2.example.test', SINK]),
    })
    const message = mail('fallback@example.test')
    expect(await mx.send(message)).toMatchObject({ host: 'mx2.example.test', address: SINK })
    expect(await atSink(message.subject)).toHaveLength(1)
  })

  it('leaves the outcome unknown when the host takes the data and drops the connection, trying no other', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', SINK], ['mx2.example.test', RECORDER]),
    })
    sink.faults.add({ match: 'dropped@example.test', dropAfterData: true, times: 1 })
    const before = recorder.connections.length
    const message = mail('dropped@example.test')
    const failure = await failureOf(mx.send(message))
    expect(failure).toBeInstanceOf(OutcomeUnknownSendError)
    expect(failure.smtp).toMatchObject({ phase: 'data', host: 'mx1.example.test', address: SINK })
    expect(await atSink(message.subject)).toHaveLength(1)
    expect(recorder.connections.length).toBe(before)
  })

  it('surfaces a 421 to the data with its code, enhanced code and text, and tries no other host', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', SINK], ['mx2.example.test', RECORDER]),
    })
    const reply =
      '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.'
    sink.faults.add({ match: 'throttled@example.test', reply, times: 1 })
    const before = recorder.connections.length
    const failure = await failureOf(mx.send(mail('throttled@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toMatchObject({
      phase: 'data',
      host: 'mx1.example.test',
      reply: {
        code: 421,
        enhanced: '4.7.28',
        text: 'Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
      },
    })
    expect(recorder.connections.length).toBe(before)
  })

  it('takes a reply to the envelope as the decision: no other host is tried', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', RECORDER], ['mx2.example.test', SINK]),
    })
    const message = mail('busy@example.test')
    const failure = await failureOf(mx.send(message))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toMatchObject({
      phase: 'envelope',
      host: 'mx1.example.test',
      reply: { code: 450, enhanced: '4.2.1', text: BUSY_REPLY.slice(10) },
    })
    expect(failure.smtp.attempts).toHaveLength(1)
    expect(await atSink(message.subject)).toEqual([])
  })

  it('fails a refused recipient permanently with the reply (a 5xx decides; no other host)', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', SINK]) })
    sink.faults.add({ match: 'gone@example.test', reply: '550 5.1.1 no such user', times: 1 })
    const failure = await failureOf(mx.send(mail('gone@example.test')))
    expect(failure).toBeInstanceOf(PermanentSendError)
    expect(failure).toMatchObject({ suppressRecipient: true, responseCode: 550, enhancedCode: '5.1.1' })
    expect(failure.smtp.reply).toEqual({ code: 550, enhanced: '5.1.1', text: 'no such user' })
  })
})

describe('connections', () => {
  it('leaves from the egress address and carries several messages over one connection', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', RECORDER]) },
      { connectionsPerHost: 1, messagesPerConnection: 3 },
    )
    const before = recorder.connections.length
    const messages = Array.from({ length: 5 }, (_, index) => mail(`reader${index}@example.test`))
    const handOffs = await Promise.all(messages.map((message) => mx.send(message, { egressAddress: EGRESS })))
    expect(handOffs.map((handOff) => handOff.address)).toEqual(Array(5).fill(RECORDER))
    // Five messages, three per connection, one connection at a time: two connections, in turn.
    const opened = recorder.connections.slice(before)
    expect(opened).toEqual([{ remoteAddress: EGRESS }, { remoteAddress: EGRESS }])
    const received = recorder.messages.filter((message) =>
      messages.some((sent) => message.raw.includes(sent.subject)),
    )
    expect(received).toHaveLength(5)
    expect(received[0]?.raw).toMatch(/^DKIM-Signature: /)
  })

  it('holds each send to its provider’s own limits where the route names them', async () => {
    // The transport would allow 4 connections and 100 messages each; this provider allows 1 and 2.
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', RECORDER]) },
      { connectionsPerHost: 4, messagesPerConnection: 100 },
    )
    const before = recorder.connections.length
    const messages = Array.from({ length: 4 }, (_, index) => mail(`limited${index}@example.test`))
    const limits = { connections: 1, messagesPerConnection: 2 }
    await Promise.all(messages.map((message) => mx.send(message, { egressAddress: EGRESS, limits })))
    // Four messages, two per connection, one at a time: two connections in turn (up to four at once
    // under the transport's own bound).
    expect(recorder.connections.slice(before)).toEqual([{ remoteAddress: EGRESS }, { remoteAddress: EGRESS }])
  })

  it('closes a connection left idle, and the pools beyond the bound', async () => {
    const idle = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', RECORDER]) },
      { idleConnectionMs: 100 },
    )
    const closedBefore = recorder.closed
    await idle.send(mail('reader@example.test'))
    await eventually(() => recorder.closed === closedBefore + 1, { what: 'the idle connection closed' })

    // One pool at most: the second address's pool pushes the first one out, its connection with it.
    const bounded = transport(
      {
        'example.test': hosts('example.test', ['mx.example.test', RECORDER]),
        'other.test': hosts('other.test', ['mx.other.test', SINK]),
      },
      { maxPools: 1 },
    )
    await bounded.send(mail('reader@example.test'))
    const closedAfterFirst = recorder.closed
    await bounded.send(mail('reader@other.test'))
    await eventually(() => recorder.closed === closedAfterFirst + 1, { what: 'the evicted pool closed' })
  })

  it('refuses private and loopback addresses unless allowed, naming the address and MX_ALLOW_PRIVATE', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', RECORDER]) },
      { allowPrivate: false },
    )
    const before = recorder.connections.length
    const failure = await failureOf(mx.send(mail('reader@example.test')))
    expect(failure).toBeInstanceOf(PermanentSendError)
    expect(failure.message).toContain(RECORDER)
    expect(failure.message).toContain('MX_ALLOW_PRIVATE')
    expect(failure.smtp).toMatchObject({
      phase: 'policy',
      attempts: [{ address: RECORDER, phase: 'policy' }],
    })
    expect(recorder.connections.length).toBe(before)
  })

  it('times out a host that never greets, and delivers through the next one', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', SILENT], ['mx2.example.test', SINK]),
    })
    const started = Date.now()
    const message = mail('patient@example.test')
    expect(await mx.send(message)).toMatchObject({ host: 'mx2.example.test' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(GREETING_TIMEOUT_MS - 50)
    expect(await atSink(message.subject)).toHaveLength(1)
  })

  it('fails transient at the greeting phase when the only host never greets', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', SILENT]) })
    const accepted = silent.accepted
    const failure = await failureOf(mx.send(mail('patient@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toMatchObject({ phase: 'greeting', host: 'mx.example.test', address: SILENT })
    expect(failure.smtp.reply).toBeUndefined()
    expect(silent.accepted).toBe(accepted + 1)
  })

  it('surfaces a 421 greeting with its code, enhanced code and text after trying every host', async () => {
    const mx = transport({
      'example.test': hosts('example.test', ['mx1.example.test', THROTTLING], ['mx2.example.test', REFUSING]),
    })
    const failure = await failureOf(mx.send(mail('reader@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp.attempts).toMatchObject([
      {
        host: 'mx1.example.test',
        phase: 'greeting',
        reply: { code: 421, enhanced: '4.7.0', text: '[TSS04] Messages from 127.0.0.2 temporarily deferred' },
      },
      { host: 'mx2.example.test', phase: 'connect' },
    ])
    // The last attempt decides the kind; the throttling reply stays in the record.
    expect(failure.smtp).toMatchObject({ phase: 'connect', address: REFUSING })
  })

  it('gives up on a send at its deadline, whatever phase it is in', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', SILENT]) },
      { timeouts: { connectionMs: 10_000, greetingMs: 10_000, socketMs: 10_000 } },
    )
    const started = Date.now()
    const failure = await failureOf(mx.send(mail('late@example.test'), { signal: AbortSignal.timeout(200) }))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('answers a send in flight when the transport closes: outcome unknown once the body left', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', SINK]) })
    // The sink holds its reply to the data; the fault leaves its list once the body has arrived.
    const fault = sink.faults.add({ match: 'held@example.test', delayMs: 10_000, times: 1 })
    const sending = failureOf(mx.send(mail('held@example.test')))
    await eventually(() => !sink.faults.list().some((listed) => listed.id === fault.id), {
      what: 'the body at the sink',
    })
    const started = Date.now()
    mx.close()
    const failure = await sending
    expect(failure).toBeInstanceOf(OutcomeUnknownSendError)
    expect(failure.smtp.phase).toBe('data')
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('tries only addresses of the egress address family', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', SINK]) })
    const failure = await failureOf(mx.send(mail('reader@example.test'), { egressAddress: '::1' }))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.message).toBe('no MX host of example.test has an IPv6 address for the egress address ::1')
  })
})

describe('DNS answers', () => {
  it('fails a null MX permanently, naming it (RFC 7505)', async () => {
    const mx = transport({ 'example.test': { kind: 'null-mx', domain: 'example.test' } })
    const failure = await failureOf(mx.send(mail('reader@example.test')))
    expect(failure).toBeInstanceOf(PermanentSendError)
    expect(failure.message).toMatch(/example\.test .*null MX.*RFC 7505/)
    expect(failure.smtp.phase).toBe('dns')
  })

  it('refuses a recipient without a domain, before any lookup', async () => {
    const mx = transport({})
    const failure = await failureOf(mx.send(mail('nobody')))
    expect(failure).toBeInstanceOf(PermanentSendError)
    expect(failure.message).toContain('"nobody" has no domain')
  })

  it('fails a domain that does not exist permanently, naming it', async () => {
    const mx = transport({})
    const failure = await failureOf(mx.send(mail('reader@nowhere.test')))
    expect(failure).toBeInstanceOf(PermanentSendError)
    expect(failure.message).toContain('nowhere.test does not exist')
  })

  it('keeps the message waiting when the lookup fails', async () => {
    const mx = transport({
      'example.test': { kind: 'temporary', domain: 'example.test', reason: 'SERVFAIL' },
    })
    const failure = await failureOf(mx.send(mail('reader@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.message).toBe('DNS lookup for example.test failed: SERVFAIL')
  })
})

describe('STARTTLS', () => {
  it('uses STARTTLS when offered and records it unverified under opportunistic', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', TLS_RECEIVER]) })
    const message = mail('secret@example.test')
    expect(await mx.send(message)).toMatchObject({ tls: 'unverified', address: TLS_RECEIVER })
    expect(tlsReceiver.messages.find((received) => received.raw.includes(message.subject))?.secure).toBe(true)
  })

  it('records verified TLS under verify when the certificate is valid for the MX host name', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', TLS_RECEIVER]) },
      { tls: 'verify', trustedCertificates: [MX_TEST_CERT] },
    )
    expect(await mx.send(mail('secret@example.test'))).toMatchObject({ tls: 'verified' })
  })

  it('never falls back to plain text under verify: a certificate for another name fails the host', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.other.test', TLS_RECEIVER]) },
      { tls: 'verify', trustedCertificates: [MX_TEST_CERT] },
    )
    const failure = await failureOf(mx.send(mail('secret@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toMatchObject({ phase: 'tls', host: 'mx.other.test' })
  })

  it('refuses a host without STARTTLS under verify', async () => {
    const mx = transport(
      { 'example.test': hosts('example.test', ['mx.example.test', RECORDER]) },
      { tls: 'verify' },
    )
    const failure = await failureOf(mx.send(mail('secret@example.test')))
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toMatchObject({ phase: 'tls', address: RECORDER })
  })

  it('retries a failed handshake once in plain text under opportunistic, and says why', async () => {
    const mx = transport({ 'example.test': hosts('example.test', ['mx.example.test', BROKEN_TLS]) })
    const message = mail('plain@example.test')
    const handOff = await mx.send(message)
    expect(handOff).toMatchObject({ tls: 'none', address: BROKEN_TLS })
    expect(handOff.tlsFallback).toMatch(/^STARTTLS failed: /)
    expect(brokenTls.messages.find((received) => received.raw.includes(message.subject))?.secure).toBe(false)
  })
})
