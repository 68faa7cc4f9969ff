import { generateKeyPairSync } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { connect, type Socket } from 'node:net'
import { eventually } from '@fairlane/testing'
import { createTransport } from 'nodemailer'
import pino from 'pino'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_TEST_RECEIVERS, type ReceiverStatus } from './receivers'
import { type MailSink, startMailSink } from './sink'
import type { StoredMessage } from './store'

// Two egress addresses of a sender: all of 127.0.0.0/8 is local on Linux.
const SOURCE_A = '127.0.0.2'
const SOURCE_B = '127.0.0.3'
const GOOGLE = '127.0.0.10'
const MICROSOFT = '127.0.0.11'

let sink: MailSink
let base: string
let receiverPort: number

beforeAll(async () => {
  sink = await startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    dnsPort: 0,
    receivers: DEFAULT_TEST_RECEIVERS,
    receiverPort: 0,
    maxMessages: 1000,
    logger: pino({ level: 'silent' }),
  })
  base = `http://127.0.0.1:${sink.httpPort}`
  receiverPort = sink.receiverPort ?? 0
})
afterAll(async () => {
  await sink?.close()
})
beforeEach(async () => {
  await fetch(`${base}/messages`, { method: 'DELETE' })
  await fetch(`${base}/faults`, { method: 'DELETE' })
  await fetch(`${base}/receivers/counts`, { method: 'DELETE' })
})

interface SendOptions {
  receiver: string
  source: string
  to?: string
  subject?: string
  dkim?: { domainName: string; keySelector: string; privateKey: string }
}

/** One message over a fresh connection from `source` to a receiver, as an MTA delivering it would. */
function send(options: SendOptions) {
  const transport = createTransport({
    host: options.receiver,
    port: receiverPort,
    localAddress: options.source,
    secure: false,
    ignoreTLS: true,
    ...(options.dkim && { dkim: options.dkim }),
  })
  const domain = options.dkim?.domainName ?? 'sender.test'
  return transport.sendMail({
    from: `sender@${domain}`,
    to: options.to ?? 'someone@gmail.test',
    subject: options.subject ?? 'hello',
    text: 'hello receiver',
  })
}

/** The SMTP error a send ended with (nodemailer's responseCode, response and command). */
async function refusal(
  sending: Promise<unknown>,
): Promise<{ responseCode?: number; response?: string; command?: string }> {
  try {
    await sending
  } catch (error) {
    return error as { responseCode?: number; response?: string; command?: string }
  }
  throw new Error('the send was accepted; a refusal was expected')
}

async function postFault(fault: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function messages(query = ''): Promise<StoredMessage[]> {
  return (await (await fetch(`${base}/messages${query}`)).json()) as StoredMessage[]
}

async function receiverStatus(name: string): Promise<ReceiverStatus> {
  const all = (await (await fetch(`${base}/receivers`)).json()) as ReceiverStatus[]
  const found = all.find((receiver) => receiver.name === name)
  if (!found) throw new Error(`no receiver ${name}`)
  return found
}

/** A raw SMTP connection from `source`, resolved with the first line the server sends. */
function openConnection(
  receiver: string,
  source: string,
): Promise<{ socket: Socket; firstLine: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = connect({ host: receiver, port: receiverPort, localAddress: source })
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString()
      const end = received.indexOf('\r\n')
      if (end >= 0) resolve({ socket, firstLine: received.slice(0, end), ms: performance.now() - started })
    })
    socket.on('error', reject)
    socket.on('close', () => reject(new Error(`closed before a line; got ${JSON.stringify(received)}`)))
  })
}

function dkimKey(domainName: string) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 })
  return {
    domainName,
    keySelector: 's1',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  }
}

describe('the receivers the sink plays', () => {
  it('all listen on one port number, each on its own address', () => {
    expect(receiverPort).toBeGreaterThan(0)
    expect(sink.receivers.map(({ name, address, port }) => ({ name, address, port }))).toEqual([
      { name: 'google', address: GOOGLE, port: receiverPort },
      { name: 'microsoft', address: MICROSOFT, port: receiverPort },
      { name: 'others', address: '127.0.0.12', port: receiverPort },
    ])
  })

  it('store each message with the receiver that took it and the source address it came from', async () => {
    await send({ receiver: GOOGLE, source: SOURCE_A, subject: 'to google' })
    await send({ receiver: MICROSOFT, source: SOURCE_B, to: 'x@outlook.test', subject: 'to microsoft' })

    const all = await messages()
    expect(all.map(({ subject, receiver, sourceAddress }) => ({ subject, receiver, sourceAddress }))).toEqual(
      [
        {
          subject: 'to google',
          receiver: { name: 'google', address: GOOGLE, port: receiverPort },
          sourceAddress: SOURCE_A,
        },
        {
          subject: 'to microsoft',
          receiver: { name: 'microsoft', address: MICROSOFT, port: receiverPort },
          sourceAddress: SOURCE_B,
        },
      ],
    )
    expect((await messages('?receiver=microsoft')).map((message) => message.subject)).toEqual([
      'to microsoft',
    ])
    expect((await messages(`?receiver=${GOOGLE}`)).map((message) => message.subject)).toEqual(['to google'])
    expect(await messages('?fields=subject,receiver,sourceAddress&receiver=google')).toEqual([
      {
        subject: 'to google',
        receiver: { name: 'google', address: GOOGLE, port: receiverPort },
        sourceAddress: SOURCE_A,
      },
    ])

    const inbox = await (await fetch(`${base}/`)).text()
    expect(inbox).toContain('<th>Receiver</th>')
    expect(inbox).toContain(`google (${GOOGLE}:${receiverPort}) from ${SOURCE_A}`)
    const [google] = await messages('?receiver=google')
    const view = await (await fetch(`${base}/view/${google?.id}`)).text()
    expect(view).toContain(`<dt>Receiver</dt><dd>google (${GOOGLE}:${receiverPort}) from ${SOURCE_A}</dd>`)
  })

  it("keep the usual listener's messages apart: no receiver, the client's address", async () => {
    const transport = createTransport({ host: '127.0.0.1', port: sink.smtpPort, ignoreTLS: true })
    await transport.sendMail({ from: 'a@sender.test', to: 'b@example.com', subject: 'plain', text: 'x' })
    const [message] = await messages()
    expect(message).toMatchObject({ subject: 'plain', receiver: null, sourceAddress: '127.0.0.1' })
    expect(await messages('?receiver=google')).toEqual([])
  })

  it('are found through MX records on the sink’s DNS server, for default and added domains', async () => {
    const resolver = new Resolver({ timeout: 2_000, tries: 1 })
    resolver.setServers([sink.dns?.address ?? ''])
    const addressOf = async (domain: string) => {
      const [mx] = await resolver.resolveMx(domain)
      return mx && { exchange: mx.exchange, addresses: await resolver.resolve4(mx.exchange) }
    }
    expect(await addressOf('gmail.test')).toEqual({
      exchange: 'gmail-smtp-in.l.google.com',
      addresses: [GOOGLE],
    })
    expect(await addressOf('googlemail.test')).toEqual({
      exchange: 'gmail-smtp-in.l.google.com',
      addresses: [GOOGLE],
    })
    expect(await addressOf('outlook.test')).toEqual({
      exchange: 'outlook-test.mail.protection.outlook.com',
      addresses: [MICROSOFT],
    })
    expect(await addressOf('others.test')).toEqual({ exchange: 'mx.others.test', addresses: ['127.0.0.12'] })

    sink.publishReceiverDomain('acme.test', 'google')
    expect(await addressOf('acme.test')).toEqual({
      exchange: 'gmail-smtp-in.l.google.com',
      addresses: [GOOGLE],
    })
    const moved = await fetch(`${base}/receivers/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'acme.test', receiver: MICROSOFT }),
    })
    expect(moved.status).toBe(201)
    expect(await resolver.resolveMx('acme.test')).toEqual([
      { exchange: 'outlook-test.mail.protection.outlook.com', priority: 10 },
    ])
    const unknown = await fetch(`${base}/receivers/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'acme.test', receiver: 'yahoo' }),
    })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ error: { details: [{ path: 'receiver' }] } })
  })

  it('throttle one source address over perMinute at MAIL FROM, while another source and receiver are accepted', async () => {
    const reply = '421 4.7.28 [127.0.0.2] unusual rate of unsolicited mail from your IP'
    const created = await postFault({ receiver: 'google', throttle: { perMinute: 3, per: 'source', reply } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      receiver: 'google',
      throttle: { perMinute: 3, per: 'source', reply },
    })

    for (let i = 0; i < 3; i++) await send({ receiver: GOOGLE, source: SOURCE_A, subject: `a${i}` })
    const throttled = await refusal(send({ receiver: GOOGLE, source: SOURCE_A, subject: 'a3' }))
    expect(throttled).toMatchObject({ responseCode: 421, response: reply, command: 'MAIL FROM' })
    await send({ receiver: GOOGLE, source: SOURCE_B, subject: 'b0' })
    await send({ receiver: MICROSOFT, source: SOURCE_A, to: 'x@outlook.test', subject: 'a-microsoft' })

    expect((await messages()).map((message) => message.subject)).toEqual([
      'a0',
      'a1',
      'a2',
      'b0',
      'a-microsoft',
    ])
    expect(await receiverStatus('google')).toMatchObject({
      attempts: 5,
      accepted: 4,
      throttled: 1,
      throttledShare: 0.2,
      sources: {
        [SOURCE_A]: { attempts: 4, accepted: 3, throttled: 1 },
        [SOURCE_B]: { attempts: 1, throttled: 0 },
      },
    })
    expect(await receiverStatus('microsoft')).toMatchObject({ attempts: 1, accepted: 1, throttled: 0 })
    const faults = (await (await fetch(`${base}/faults`)).json()) as unknown[]
    expect(faults).toEqual([expect.objectContaining({ receiver: 'google', id: created.body.id })])
  })

  it('throttle one DKIM signing domain at the end of DATA, from any source, while another domain is accepted', async () => {
    const reply = '421 4.7.28 unusual rate of mail signed by a.test'
    await postFault({
      receiver: GOOGLE,
      throttle: {
        perMinute: 2,
        per: 'dkimDomain',
        reply: '421 4.7.28 unusual rate of mail signed by {dkimDomain}',
      },
    })
    const a = dkimKey('a.test')
    const b = dkimKey('b.test')

    await send({ receiver: GOOGLE, source: SOURCE_A, dkim: a, subject: 'a0' })
    await send({ receiver: GOOGLE, source: SOURCE_B, dkim: a, subject: 'a1' })
    const throttled = await refusal(send({ receiver: GOOGLE, source: SOURCE_B, dkim: a, subject: 'a2' }))
    expect(throttled).toMatchObject({ responseCode: 421, response: reply })
    expect(throttled.command).toMatch(/DATA/)
    await send({ receiver: GOOGLE, source: SOURCE_A, dkim: b, subject: 'b0' })
    await send({ receiver: GOOGLE, source: SOURCE_A, subject: 'unsigned' })

    expect((await messages()).map((message) => message.subject)).toEqual(['a0', 'a1', 'b0', 'unsigned'])
    expect(await receiverStatus('google')).toMatchObject({ attempts: 5, accepted: 4, throttled: 1 })
  })

  it('refuse a source’s connection beyond maxConnections at greeting, and admit it again once one closes', async () => {
    await postFault({ receiver: 'google', maxConnections: 2 })
    const first = await openConnection(GOOGLE, SOURCE_A)
    const second = await openConnection(GOOGLE, SOURCE_A)
    try {
      expect(first.firstLine).toBe('220 gmail-smtp-in.l.google.com ESMTP Fairlane mailsink receiver google')
      expect([first.firstLine, second.firstLine]).toEqual([
        expect.stringMatching(/^220 /),
        expect.stringMatching(/^220 /),
      ])
      const third = await openConnection(GOOGLE, SOURCE_A)
      third.socket.destroy()
      expect(third.firstLine).toBe('421 4.7.0 Too many connections')
      const otherSource = await openConnection(GOOGLE, SOURCE_B)
      otherSource.socket.destroy()
      expect(otherSource.firstLine).toMatch(/^220 /)
      const otherReceiver = await openConnection(MICROSOFT, SOURCE_A)
      otherReceiver.socket.destroy()
      expect(otherReceiver.firstLine).toMatch(/^220 /)

      first.socket.destroy()
      await eventually(
        async () => (await receiverStatus('google')).sources[SOURCE_A]?.openConnections === 1,
        {
          timeoutMs: 5_000,
          what: 'the closed connection to be counted',
        },
      )
      const again = await openConnection(GOOGLE, SOURCE_A)
      again.socket.destroy()
      expect(again.firstLine).toMatch(/^220 /)
      expect(await receiverStatus('google')).toMatchObject({ refusedConnections: 1 })
    } finally {
      first.socket.destroy()
      second.socket.destroy()
    }
  })

  it('hold the greeting back by greetingDelayMs', async () => {
    await postFault({ receiver: 'google', greetingDelayMs: 600 })
    const delayed = await openConnection(GOOGLE, SOURCE_A)
    delayed.socket.destroy()
    expect(delayed.firstLine).toMatch(/^220 /)
    expect(delayed.ms).toBeGreaterThanOrEqual(600)
    // The message still goes through after the wait.
    await send({ receiver: GOOGLE, source: SOURCE_A, subject: 'late' })
    expect((await messages()).map((message) => message.subject)).toEqual(['late'])
  })

  it('refuse a receiver fault naming an unknown receiver or a bad field, with the field', async () => {
    const unknown = await postFault({ receiver: '127.0.0.99', maxConnections: 1 })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ error: { code: 'invalid_fault', details: [{ path: 'receiver' }] } })
    expect(JSON.stringify(unknown.body)).toContain('google (127.0.0.10')
    const bad = await postFault({ receiver: 'google', throttle: { perMinute: 5, per: 'recipient' } })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ error: { details: [{ path: 'throttle.per' }] } })
  })
})
