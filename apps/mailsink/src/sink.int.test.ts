import { connect } from 'node:net'
import { createTransport } from 'nodemailer'
import pino from 'pino'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MailSink, type MailSinkOptions, startMailSink } from './sink'
import type { StoredMessage } from './store'

const logger = pino({ level: 'silent' })

async function start(maxMessages = 1000, options: Pick<MailSinkOptions, 'keep'> = {}): Promise<MailSink> {
  return startMailSink({ host: '127.0.0.1', smtpPort: 0, httpPort: 0, maxMessages, logger, ...options })
}

/** One connection per message (no pool), so a dropped connection cannot affect the next send. */
function mailer(sink: MailSink) {
  const transport = createTransport({
    host: '127.0.0.1',
    port: sink.smtpPort,
    secure: false,
    ignoreTLS: true,
  })
  return (to: string | string[], subject: string, extra: { bcc?: string; html?: string } = {}) =>
    transport.sendMail({
      from: '"Fairlane Test" <sender@fairlane.test>',
      to,
      subject,
      text: `body of ${subject}`,
      ...extra,
    })
}

function client(sink: MailSink) {
  const base = `http://127.0.0.1:${sink.httpPort}`
  return {
    async json<T = unknown>(
      path: string,
      init?: RequestInit,
    ): Promise<{ status: number; body: T; headers: Headers }> {
      const response = await fetch(base + path, init)
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      return { status: response.status, body: (await response.json()) as T, headers: response.headers }
    },
    async messages(query = ''): Promise<StoredMessage[]> {
      const response = await fetch(`${base}/messages${query}`)
      expect(response.status).toBe(200)
      return (await response.json()) as StoredMessage[]
    },
    postFault(fault: unknown) {
      return this.json<Record<string, unknown>>('/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      })
    },
    fetch: (path: string, init?: RequestInit) => fetch(base + path, init),
  }
}

/** Polls until the clock has moved past `iso`, so a later message gets a strictly later timestamp. */
async function clockPast(iso: string): Promise<void> {
  const deadline = Date.now() + 1000
  while (Date.now() <= Date.parse(iso)) {
    if (Date.now() > deadline) throw new Error('clock did not advance')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Sends bytes over a raw TCP connection and returns everything the server answered before closing. */
function rawExchange(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data))
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
  })
}

/** The error a promise rejects with; fails the test if it resolves instead. */
async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return promise.then(
    (value) => {
      throw new Error(`expected the send to fail, it succeeded: ${JSON.stringify(value)}`)
    },
    (error: Error & Record<string, unknown>) => error,
  )
}

describe('mail sink', () => {
  let sink: MailSink
  let send: ReturnType<typeof mailer>
  let api: ReturnType<typeof client>

  beforeAll(async () => {
    sink = await start()
    send = mailer(sink)
    api = client(sink)
  })
  afterAll(async () => {
    await sink?.close()
  })
  beforeEach(async () => {
    await api.fetch('/messages', { method: 'DELETE' })
    await api.fetch('/faults', { method: 'DELETE' })
  })

  it('binds real ports when asked for port 0', () => {
    expect(sink.smtpPort).toBeGreaterThan(0)
    expect(sink.httpPort).toBeGreaterThan(0)
    expect(sink.smtpPort).not.toBe(sink.httpPort)
  })

  it('stores accepted messages and lists them by envelope recipient', async () => {
    const info = await send(['Alice@Example.com', 'bob@example.com'], 'first', {
      bcc: 'hidden@example.com',
      html: '<p>hello <b>html</b></p>',
    })
    await send('carol@example.com', 'second')

    const all = await api.messages()
    expect(all.map((m) => m.subject)).toEqual(['first', 'second'])

    const forAlice = await api.messages('?to=alice@EXAMPLE.com')
    expect(forAlice).toHaveLength(1)
    const [message] = forAlice
    expect(message).toMatchObject({
      messageId: info.messageId,
      from: '"Fairlane Test" <sender@fairlane.test>',
      // As the envelope carried it: nodemailer lowercases the domain part, the local part keeps its case.
      to: 'Alice@example.com, bob@example.com, hidden@example.com',
      recipients: ['alice@example.com', 'bob@example.com', 'hidden@example.com'],
      subject: 'first',
      text: 'body of first',
      html: '<p>hello <b>html</b></p>',
    })
    expect(message?.messageId).toMatch(/^<.+@.+>$/)
    expect(message?.headers['message-id']).toBe(info.messageId)
    expect(message?.headers.subject).toBe('first')
    // Raw, as nodemailer wrote it (no quotes needed around this display name).
    expect(message?.headers.from).toBe('Fairlane Test <sender@fairlane.test>')
    expect(message?.headers).not.toHaveProperty('bcc')
    expect(new Date(message?.receivedAt ?? '').toISOString()).toBe(message?.receivedAt)

    expect(await api.messages('?to=hidden@example.com')).toHaveLength(1)
    expect(await api.messages('?to=nobody@example.com')).toEqual([])
    expect((await api.messages('?to=carol@example.com'))[0]?.html).toBeNull()

    const one = await api.json<StoredMessage>(`/messages/${message?.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(message)

    const missing = await api.json<{ error: { code: string } }>('/messages/no-such-id')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('message_not_found')
  })

  it('filters with since, as epoch milliseconds or ISO, and refuses a bad since', async () => {
    await send('since@example.com', 'before')
    const [before] = await api.messages('?to=since@example.com')
    await clockPast(before?.receivedAt ?? '')
    const cutoff = Date.now()
    await send('since@example.com', 'after')

    expect((await api.messages(`?since=${cutoff}`)).map((m) => m.subject)).toEqual(['after'])
    const iso = new Date(cutoff).toISOString()
    expect((await api.messages(`?to=since@example.com&since=${iso}`)).map((m) => m.subject)).toEqual([
      'after',
    ])
    // Inclusive: a message received exactly at `since` is kept.
    expect(await api.messages(`?since=${encodeURIComponent(before?.receivedAt ?? '')}`)).toHaveLength(2)

    // `fields` keeps only what a benchmark needs from tens of thousands of messages.
    expect(await api.messages('?to=since@example.com&fields=subject,to')).toEqual([
      { subject: 'before', to: 'since@example.com' },
      { subject: 'after', to: 'since@example.com' },
    ])
    const badFields = await api.json<{ error: { code: string; message: string } }>('/messages?fields=to,body')
    expect(badFields.status).toBe(400)
    expect(badFields.body.error.message).toContain('body')

    const bad = await api.json<{ error: { code: string; message: string } }>('/messages?since=last-tuesday')
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('invalid_since')
    expect(bad.body.error.message).toContain('last-tuesday')
  })

  it('answers 451 while a fault has times left, then accepts', async () => {
    const created = await api.postFault({
      match: 'retry@example.com',
      reply: '451 4.7.1 try later',
      times: 2,
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ match: 'retry@example.com', reply: '451 4.7.1 try later', times: 2 })
    expect(created.body.id).toEqual(expect.any(String))

    for (let attempt = 1; attempt <= 2; attempt++) {
      const error = await rejection(send('retry@example.com', `attempt ${attempt}`))
      expect(error.responseCode).toBe(451)
      expect(error.response).toBe('451 4.7.1 try later')
    }
    await send('retry@example.com', 'attempt 3')

    const stored = await api.messages('?to=retry@example.com')
    expect(stored.map((m) => m.subject)).toEqual(['attempt 3'])
    expect((await api.json('/faults')).body).toEqual([])
  })

  it('answers 550 5.1.1 and stores nothing', async () => {
    await api.postFault({ match: 'ghost@example.com', reply: '550 5.1.1 no such user' })
    const error = await rejection(send('ghost@example.com', 'to a ghost'))
    expect(error.responseCode).toBe(550)
    expect(error.response).toBe('550 5.1.1 no such user')
    expect(await api.messages()).toEqual([])
    // Without times the fault stays until cleared.
    expect((await rejection(send('ghost@example.com', 'again'))).responseCode).toBe(550)
  })

  it('matches a whole domain, on any recipient of the message', async () => {
    await api.postFault({ match: '@blocked.example', reply: '554 5.7.1 domain blocked', times: 1 })
    const error = await rejection(send(['fine@example.com', 'Someone@Blocked.Example'], 'mixed'))
    expect(error.responseCode).toBe(554)
    await send('someone@blocked.example', 'after the fault ran out')
    expect((await api.messages()).map((m) => m.subject)).toEqual(['after the fault ran out'])
  })

  it('delays the answer with delayMs and then accepts', async () => {
    await api.postFault({ match: 'slow@example.com', delayMs: 300, times: 1 })
    const started = performance.now()
    await send('slow@example.com', 'slow one')
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect(await api.messages('?to=slow@example.com')).toHaveLength(1)
  })

  it('drops the connection without answering', async () => {
    await api.postFault({ match: 'drop@example.com', drop: true, times: 1 })
    const error = await rejection(send('drop@example.com', 'dropped'))
    expect(error.code).toBe('ECONNECTION')
    expect(error.responseCode).toBeUndefined()
    expect(await api.messages()).toEqual([])
    await send('drop@example.com', 'after drop')
    expect((await api.messages()).map((m) => m.subject)).toEqual(['after drop'])
  })

  it('stores the message and then drops the connection without answering (dropAfterData)', async () => {
    await api.postFault({ match: 'lost-reply@example.com', dropAfterData: true, times: 1 })
    const error = await rejection(send('lost-reply@example.com', 'stored, never answered'))
    expect(error.code).toBe('ECONNECTION')
    expect(error.responseCode).toBeUndefined()
    expect((await api.messages()).map((m) => m.subject)).toEqual(['stored, never answered'])
    await send('lost-reply@example.com', 'answered')
    expect((await api.messages('?to=lost-reply@example.com')).map((m) => m.subject)).toEqual([
      'stored, never answered',
      'answered',
    ])
  })

  it('lists and clears faults', async () => {
    await api.postFault({ match: 'a@example.com', reply: '451 4.3.0 busy' })
    await api.postFault({ match: '@example.org', delayMs: 10, times: 3 })
    const listed = await api.json<Array<Record<string, unknown>>>('/faults')
    expect(listed.body.map((f) => f.match)).toEqual(['a@example.com', '@example.org'])

    const cleared = await api.json('/faults', { method: 'DELETE' })
    expect(cleared).toMatchObject({ status: 200, body: { cleared: 2 } })
    expect((await api.json('/faults')).body).toEqual([])
    await send('a@example.com', 'accepted again')
    expect(await api.messages('?to=a@example.com')).toHaveLength(1)
  })

  it('clears messages and reports health', async () => {
    await send('x@example.com', 'one')
    await send('x@example.com', 'two')
    expect((await api.json('/health')).body).toEqual({ ok: true, messages: 2 })
    const deleted = await api.json('/messages', { method: 'DELETE' })
    expect(deleted).toMatchObject({ status: 200, body: { deleted: 2 } })
    expect(await api.messages()).toEqual([])
    expect((await api.json('/health')).body).toEqual({ ok: true, messages: 0 })
  })

  it('answers malformed input with a 4xx JSON error and keeps running', async () => {
    const post = (body: string, contentType = 'application/json') =>
      api.json<{ error: { code: string; message: string } }>('/faults', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      })

    const badJson = await post('{"match": ')
    expect(badJson.status).toBe(400)
    expect(badJson.body.error.code).toBe('invalid_json')

    const empty = await post('')
    expect(empty.status).toBe(400)

    const wrongType = await post('match=a@example.com', 'application/x-www-form-urlencoded')
    expect(wrongType.status).toBe(415)
    expect(wrongType.body.error.code).toBe('unsupported_media_type')

    const badFault = await post(JSON.stringify({ match: 'a@example.com', reply: '250 fine' }))
    expect(badFault.status).toBe(400)
    expect(badFault.body.error).toMatchObject({
      code: 'invalid_fault',
      message: expect.stringContaining('"reply"'),
    })

    const noAction = await post(JSON.stringify({ match: 'a@example.com' }))
    expect(noAction.status).toBe(400)

    const tooBig = await post(JSON.stringify({ match: 'a@example.com', reply: `451 ${'x'.repeat(70_000)}` }))
    expect(tooBig.status).toBe(413)
    expect(tooBig.body.error.code).toBe('payload_too_large')

    const unknown = await api.json<{ error: { code: string } }>('/nope')
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('not_found')

    const wrongMethod = await api.json<{ error: { code: string } }>('/health', { method: 'POST' })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.body.error.code).toBe('method_not_allowed')
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD')

    const garbage = await rawExchange(sink.httpPort, 'NOT HTTP AT ALL\r\n\r\n')
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'malformed_request' },
    })

    expect((await api.json('/faults')).body).toEqual([])
    expect((await api.json('/health')).status).toBe(200)
    await send('still@example.com', 'still alive')
    expect(await api.messages('?to=still@example.com')).toHaveLength(1)
  })

  it('serves an escaped inbox page and a message view', async () => {
    await send('page@example.com', '<script>alert(1)</script> & more')
    const [message] = await api.messages('?to=page@example.com')

    const inbox = await api.fetch('/')
    expect(inbox.status).toBe(200)
    expect(inbox.headers.get('content-type')).toMatch(/^text\/html/)
    const inboxHtml = await inbox.text()
    expect(inboxHtml).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more')
    expect(inboxHtml).not.toContain('<script>')
    expect(inboxHtml).toContain(`/view/${message?.id}`)

    const view = await api.fetch(`/view/${message?.id}`)
    expect(view.status).toBe(200)
    const viewHtml = await view.text()
    expect(viewHtml).toContain('body of &lt;script&gt;')
    expect(viewHtml).toContain('message-id')

    expect((await api.fetch('/view/unknown')).status).toBe(404)
  })
})

describe('mail sink ring buffer', () => {
  it('drops the oldest messages beyond maxMessages', async () => {
    const sink = await start(3)
    try {
      const send = mailer(sink)
      for (let i = 1; i <= 5; i++) await send('ring@example.com', `message ${i}`)
      const messages = await client(sink).messages()
      expect(messages.map((m) => m.subject)).toEqual(['message 3', 'message 4', 'message 5'])
      expect((await client(sink).json('/health')).body).toEqual({ ok: true, messages: 3 })
    } finally {
      await sink.close()
    }
  })
})

describe('a mail sink keeping headers only (MAILSINK_STORE=headers)', () => {
  it('lists the message with its headers and envelope, no body, and says why /raw has nothing', async () => {
    const sink = await start(10, { keep: 'headers' })
    try {
      const sent = await mailer(sink)('light@example.com', 'headers only')
      const [message] = await client(sink).messages('?to=light@example.com')
      expect(message).toMatchObject({
        messageId: sent.messageId,
        subject: 'headers only',
        // The header as written (nodemailer writes no quotes here), not mailparser's rendering of it.
        from: 'Fairlane Test <sender@fairlane.test>',
        recipients: ['light@example.com'],
        text: '',
        html: null,
      })
      expect(message?.headers['content-type']).toMatch(/^text\/plain/)
      const raw = await client(sink).json<{ error: { code: string; message: string } }>(
        `/messages/${message?.id}/raw`,
      )
      expect(raw.status).toBe(404)
      expect(raw.body.error).toMatchObject({ code: 'raw_not_kept' })
      expect(raw.body.error.message).toContain('MAILSINK_STORE=headers')
    } finally {
      await sink.close()
    }
  })
})

describe('mail sink startup', () => {
  it('reports a port in use with the service that could not bind', async () => {
    const first = await start()
    try {
      const error = await startMailSink({
        host: '127.0.0.1',
        smtpPort: 0,
        httpPort: first.httpPort,
        maxMessages: 10,
        logger,
      }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toMatchObject({
        name: 'ListenError',
        service: 'http',
        code: 'EADDRINUSE',
        port: first.httpPort,
      })
    } finally {
      await first.close()
    }
  })

  it('closes more than once without complaint', async () => {
    const sink = await start()
    await sink.close()
    await sink.close()
  })
})
