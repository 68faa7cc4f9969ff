import type { AddressInfo } from 'node:net'
import { eventually, freePort } from '@fairlane/testing'
import { simpleParser } from 'mailparser'
import { createTransport } from 'nodemailer'
import pino from 'pino'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { NotificationCounts, NotificationRecord } from './notifier'
import { type MailSink, startMailSink } from './sink'
import { fieldGroups, one, parseReport } from './test-support/report-parts'

const logger = pino({ level: 'silent' })
/** The VERP return path the platform would have put in MAIL FROM. */
const SENDER = 'b+42.t1.sig@bounces.fairlane.test'
const MTA = 'mx.sink.test'

interface Received {
  mailFrom: string
  rcptTo: string[]
  raw: Buffer
  /** Date.now() when the receiver had the whole message. */
  at: number
}

/**
 * A tiny SMTP server standing in for the inbound server (apps/inbound): it records the envelope and
 * bytes of every report it gets. `refuse` makes it answer RCPT TO with that reply instead.
 */
async function startReceiver() {
  const received: Received[] = []
  let refuse: string | undefined
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo: (_address, _session, callback) => {
      if (!refuse) return callback()
      const [code, ...text] = refuse.split(' ')
      callback(Object.assign(new Error(text.join(' ')), { responseCode: Number(code) }))
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '(none)',
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks),
          at: Date.now(),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    received,
    refuseWith(reply: string | undefined) {
      refuse = reply
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function startSink(inboundSmtpUrl: string | undefined): Promise<MailSink> {
  return startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 1000,
    logger,
    inboundSmtpUrl,
    mtaName: MTA,
  })
}

function api(sink: MailSink) {
  const base = `http://127.0.0.1:${sink.httpPort}`
  const json = async <T>(path: string, init?: RequestInit) => {
    const response = await fetch(base + path, init)
    return { status: response.status, body: (await response.json()) as T }
  }
  return {
    json,
    postFault: (fault: unknown) =>
      json<Record<string, unknown>>('/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      }),
    notifications: async () =>
      (await json<NotificationCounts & { notifications: NotificationRecord[] }>('/notifications')).body,
    reset: () =>
      Promise.all(
        ['/faults', '/messages', '/notifications'].map((path) => fetch(base + path, { method: 'DELETE' })),
      ),
  }
}

/** Sends one message to the sink with SENDER (or `from`) as the envelope sender. */
function send(sink: MailSink, to: string[], subject: string, from = SENDER) {
  const transport = createTransport({
    host: '127.0.0.1',
    port: sink.smtpPort,
    secure: false,
    ignoreTLS: true,
  })
  return transport.sendMail({
    from: '"Shop" <news@shop.example>',
    to,
    subject,
    text: `body of ${subject}`,
    envelope: { from, to },
  })
}

describe('mail sink as a remote MTA', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let sink: MailSink
  let client: ReturnType<typeof api>

  beforeAll(async () => {
    receiver = await startReceiver()
    sink = await startSink(receiver.url)
    client = api(sink)
  })
  afterAll(async () => {
    await sink?.close()
    await receiver?.close()
  })
  beforeEach(async () => {
    await client.reset()
    receiver.received.length = 0
    receiver.refuseWith(undefined)
  })

  it('accepts a message with 250, then sends a DSN 5.1.1 to its envelope sender with MAIL FROM:<>', async () => {
    const fault = await client.postFault({ match: 'gone@example.com', bounce: '5.1.1' })
    expect(fault.status).toBe(201)
    const info = await send(sink, ['gone@example.com', 'here@example.com'], 'dead address')
    expect(info.response).toMatch(/^250 /)
    expect(info.accepted).toEqual(['gone@example.com', 'here@example.com'])
    // Stored as usual: the sink accepted it, the bounce comes later.
    const stored = await client.json<Array<{ messageId: string }>>('/messages?to=gone@example.com')
    expect(stored.body.map((message) => message.messageId)).toEqual([info.messageId])

    const [dsn] = await eventually(() => receiver.received.length === 1 && receiver.received, {
      what: 'the DSN at the receiver',
    })
    expect(dsn?.mailFrom).toBe('')
    expect(dsn?.rcptTo).toEqual([SENDER])
    const report = await parseReport(dsn?.raw ?? Buffer.alloc(0))
    expect(report.reportType).toBe('delivery-status')
    expect(report.mail.from?.value[0]?.address).toBe(`MAILER-DAEMON@${MTA}`)
    expect(report.mail.to).toMatchObject({ value: [{ address: SENDER }] })
    const [perMessage, ...recipients] = fieldGroups(report.parts[1]?.body ?? '')
    expect(one(perMessage, 'Reporting-MTA')).toBe(`dns; ${MTA}`)
    // Only the recipient the fault matched is reported.
    expect(recipients).toHaveLength(1)
    expect(one(recipients[0], 'Final-Recipient')).toBe('rfc822; gone@example.com')
    expect(one(recipients[0], 'Action')).toBe('failed')
    expect(one(recipients[0], 'Status')).toBe('5.1.1')
    expect(one(recipients[0], 'Diagnostic-Code')).toMatch(/^smtp; 550 5\.1\.1 /)
    const originalHeaders = await simpleParser(Buffer.from(report.parts[2]?.body ?? ''))
    expect(originalHeaders.messageId).toBe(info.messageId)

    const notifications = await eventually(async () => {
      const listed = await client.notifications()
      return listed.sent === 1 && listed
    })
    expect(notifications).toMatchObject({ pending: 0, sent: 1, failed: 0, skipped: 0 })
    expect(notifications.notifications).toEqual([
      expect.objectContaining({
        kind: 'bounce',
        status: 'sent',
        to: SENDER,
        recipients: ['gone@example.com'],
        bounce: '5.1.1',
        message: { id: expect.any(String), messageId: info.messageId },
        reportMessageId: report.mail.messageId,
        response: expect.stringMatching(/^250 /),
      }),
    ])
  })

  it('reports a 4.x.x status as Action: delayed', async () => {
    await client.postFault({ match: '@full.example', bounce: '4.2.2' })
    await send(sink, ['a@full.example'], 'over quota')
    const [dsn] = await eventually(() => receiver.received.length === 1 && receiver.received)
    const report = await parseReport(dsn?.raw ?? Buffer.alloc(0))
    const [, recipient] = fieldGroups(report.parts[1]?.body ?? '')
    expect(one(recipient, 'Action')).toBe('delayed')
    expect(one(recipient, 'Status')).toBe('4.2.2')
  })

  it('lists every matching recipient of one message in one DSN', async () => {
    await client.postFault({ match: '@gone.example', bounce: '5.1.1' })
    await send(sink, ['a@gone.example', 'ok@example.com', 'b@gone.example'], 'two dead')
    const [dsn] = await eventually(() => receiver.received.length === 1 && receiver.received)
    const [, ...recipients] = fieldGroups(
      (await parseReport(dsn?.raw ?? Buffer.alloc(0))).parts[1]?.body ?? '',
    )
    expect(recipients.map((group) => one(group, 'Final-Recipient'))).toEqual([
      'rfc822; a@gone.example',
      'rfc822; b@gone.example',
    ])
  })

  it('sends an ARF abuse report with the original message for a complaint fault', async () => {
    await client.postFault({ match: 'angry@example.com', complaint: true })
    const info = await send(sink, ['angry@example.com'], 'spammy')
    const [arf] = await eventually(() => receiver.received.length === 1 && receiver.received)
    expect(arf?.mailFrom).toBe('')
    expect(arf?.rcptTo).toEqual([SENDER])
    const report = await parseReport(arf?.raw ?? Buffer.alloc(0))
    expect(report.reportType).toBe('feedback-report')
    const [fields] = fieldGroups(report.parts[1]?.body ?? '')
    expect(one(fields, 'Feedback-Type')).toBe('abuse')
    expect(one(fields, 'Version')).toBe('1')
    expect(one(fields, 'Original-Mail-From')).toBe(`<${SENDER}>`)
    expect(one(fields, 'Original-Rcpt-To')).toBe('<angry@example.com>')
    expect(one(fields, 'Reported-Domain')).toBe('shop.example')
    expect(one(fields, 'Source-IP')).toBe('127.0.0.1')
    const attached = report.mail.attachments.find((part) => part.contentType === 'message/rfc822')
    const original = await simpleParser(attached?.content ?? Buffer.alloc(0))
    expect(original.messageId).toBe(info.messageId)
    expect(original.subject).toBe('spammy')
  })

  it('sends the report delayMs after accepting the message, not before', async () => {
    const delayMs = 800
    await client.postFault({ match: 'slow@example.com', bounce: '5.1.1', delayMs })
    const before = Date.now()
    const info = await send(sink, ['slow@example.com'], 'later')
    // The delay is the notification's: the message itself was answered 250 at once.
    expect(info.response).toMatch(/^250 /)
    const [dsn] = await eventually(() => receiver.received.length === 1 && receiver.received, {
      timeoutMs: 10_000,
    })
    expect((dsn?.at ?? 0) - before).toBeGreaterThanOrEqual(delayMs)
    const [record] = (await client.notifications()).notifications
    expect(Date.parse(record?.dueAt ?? '') - Date.parse(record?.createdAt ?? '')).toBe(delayMs)
  })

  it('honours times: only that many messages get a report', async () => {
    await client.postFault({ match: 'twice@example.com', bounce: '5.1.1', times: 2 })
    for (const subject of ['one', 'two', 'three']) await send(sink, ['twice@example.com'], subject)
    expect((await client.json<unknown[]>('/faults')).body).toEqual([])
    await eventually(() => receiver.received.length === 2)
    // A notification is recorded before the 250, so the third message's absence is already final.
    const listed = await client.notifications()
    expect(listed.notifications).toHaveLength(2)
    expect(listed).toMatchObject({ sent: 2, pending: 0 })
    const subjects = await Promise.all(
      receiver.received.map(async (dsn) => {
        const headers = (await parseReport(dsn.raw)).parts[2]?.body ?? ''
        return (await simpleParser(Buffer.from(headers))).subject
      }),
    )
    expect(subjects.sort()).toEqual(['one', 'two'])
  })

  it('skips a message that had the null sender, and says so', async () => {
    await client.postFault({ match: 'loop@example.com', bounce: '5.1.1' })
    await send(sink, ['loop@example.com'], 'a bounce itself', '')
    const listed = await client.notifications()
    expect(listed).toMatchObject({ skipped: 1, pending: 0, sent: 0 })
    expect(listed.notifications[0]).toMatchObject({
      status: 'skipped',
      to: '',
      error: expect.stringContaining('<>'),
    })
    expect(receiver.received).toEqual([])
  })

  it('records a report the inbound server refuses, with its reply', async () => {
    receiver.refuseWith('550 5.1.1 unknown return path')
    await client.postFault({ match: 'gone@example.com', bounce: '5.1.1' })
    await send(sink, ['gone@example.com'], 'refused')
    const listed = await eventually(async () => {
      const found = await client.notifications()
      return found.failed === 1 && found
    })
    expect(listed.notifications[0]).toMatchObject({
      status: 'failed',
      to: SENDER,
      response: expect.stringContaining('550 5.1.1 unknown return path'),
    })
  })

  it('refuses bad notification faults with 400 naming the field', async () => {
    const bad = await client.postFault({ match: 'a@example.com', bounce: '2.0.0' })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'invalid_fault', details: [{ path: 'bounce' }] })
    const both = await client.postFault({ match: 'a@example.com', complaint: true, reply: '550 x' })
    expect(both.status).toBe(400)
    expect(both.body.error).toMatchObject({ details: [{ path: 'reply' }] })
    const status = await client.json<{ error: { details: unknown } }>('/notifications?status=lost')
    expect(status.status).toBe(400)
    expect(status.body.error.details).toEqual([{ path: 'status', message: expect.any(String) }])
  })

  it('keeps reply faults working beside notification faults', async () => {
    await client.postFault({ match: 'busy@example.com', reply: '451 4.7.1 try later' })
    await client.postFault({ match: 'gone@example.com', bounce: '5.1.1' })
    await expect(send(sink, ['busy@example.com'], 'busy')).rejects.toMatchObject({ responseCode: 451 })
    await send(sink, ['gone@example.com'], 'gone')
    await eventually(() => receiver.received.length === 1)
    expect((await client.notifications()).notifications).toHaveLength(1)
  })
})

describe('mail sink notifications, when the inbound server is away', () => {
  it('makes a failed send visible at /notifications and /health', async () => {
    const sink = await startSink(`smtp://127.0.0.1:${await freePort()}`)
    try {
      const client = api(sink)
      await client.postFault({ match: 'gone@example.com', bounce: '5.1.1' })
      await send(sink, ['gone@example.com'], 'nobody listens')
      const listed = await eventually(async () => {
        const found = await client.notifications()
        return found.failed === 1 && found
      })
      expect(listed.notifications[0]).toMatchObject({
        status: 'failed',
        to: SENDER,
        error: expect.stringContaining('ECONNREFUSED'),
      })
      const failedOnly = await client.json<{ notifications: unknown[] }>('/notifications?status=failed')
      expect(failedOnly.body.notifications).toHaveLength(1)
      const health = await client.json<{ notifications: NotificationCounts }>('/health')
      expect(health.body.notifications).toMatchObject({ failed: 1, sent: 0 })
    } finally {
      await sink.close()
    }
  })

  it('refuses notification faults on a sink without INBOUND_SMTP_URL', async () => {
    const sink = await startSink(undefined)
    try {
      const client = api(sink)
      const refused = await client.postFault({ match: 'a@example.com', complaint: true })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toMatchObject({
        message: expect.stringContaining('INBOUND_SMTP_URL'),
        details: [{ path: 'complaint' }],
      })
      expect((await client.json('/notifications')).status).toBe(404)
      expect((await client.postFault({ match: 'a@example.com', reply: '550 x' })).status).toBe(201)
    } finally {
      await sink.close()
    }
  })
})

describe('mail sink close', () => {
  it('sends pending notifications at once instead of dropping them', async () => {
    const receiver = await startReceiver()
    const sink = await startSink(receiver.url)
    try {
      await api(sink).postFault({ match: 'gone@example.com', bounce: '5.1.1', delayMs: 60_000 })
      await send(sink, ['gone@example.com'], 'pending at close')
      expect(sink.notifier?.summary()).toMatchObject({ pending: 1 })
      const before = Date.now()
      await sink.close()
      expect(Date.now() - before).toBeLessThan(30_000)
      expect(receiver.received).toHaveLength(1)
      expect(receiver.received[0]?.mailFrom).toBe('')
      expect(sink.notifier?.summary()).toMatchObject({ pending: 0, sent: 1 })
    } finally {
      await sink.close()
      await receiver.close()
    }
  })
})
