import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import { buildDsn, diagnosticReply } from './dsn'
import { fieldGroups, one, parseReport } from './test-support/report-parts'

const ORIGINAL = Buffer.from(
  [
    'From: "Shop" <news@shop.example>',
    'To: ada@example.com, bob@example.com',
    'Subject: Winter sale',
    'Message-ID: <0123.abc@fairlane.test>',
    'List-Unsubscribe: <https://fairlane.test/u/token>',
    '',
    'The body, which a bounce does not carry.',
    '',
  ].join('\r\n'),
)
const ARRIVED = new Date('2026-12-03T10:00:00.000Z')
const NOW = new Date('2026-12-03T10:05:00.000Z')
const SENDER = 'b+1.abc.sig@bounces.fairlane.test'

function build(status: string, recipients = ['ada@example.com'], raw = ORIGINAL) {
  return buildDsn({
    mtaName: 'mx.sink.test',
    original: { raw, envelopeFrom: SENDER, arrivedAt: ARRIVED },
    recipients,
    status,
    now: NOW,
    messageId: '<dsn-1@mx.sink.test>',
  })
}

describe('buildDsn', () => {
  it('writes a failed-delivery DSN (RFC 3464) that mailparser reads back field by field', async () => {
    const dsn = build('5.1.1', ['ada@example.com', 'bob@example.com'])
    const report = await parseReport(dsn.raw)

    expect(dsn.messageId).toBe('<dsn-1@mx.sink.test>')
    expect(report.reportType).toBe('delivery-status')
    expect(report.mail.from?.value).toEqual([
      { name: 'Mail Delivery System', address: 'MAILER-DAEMON@mx.sink.test' },
    ])
    expect(report.mail.to).toMatchObject({ value: [{ address: SENDER }] })
    expect(report.mail.subject).toBe('Undelivered Mail Returned to Sender')
    expect(report.mail.messageId).toBe('<dsn-1@mx.sink.test>')
    expect(report.mail.date?.toISOString()).toBe(NOW.toISOString())
    expect(report.mail.headers.get('auto-submitted')).toBe('auto-replied')
    expect(report.parts.map((part) => part.contentType)).toEqual([
      'text/plain',
      'message/delivery-status',
      'text/rfc822-headers',
    ])

    const [perMessage, ...perRecipient] = fieldGroups(report.parts[1]?.body ?? '')
    expect(one(perMessage, 'Reporting-MTA')).toBe('dns; mx.sink.test')
    expect(Date.parse(one(perMessage, 'Arrival-Date'))).toBe(ARRIVED.getTime())
    expect(perRecipient).toHaveLength(2)
    expect(perRecipient.map((group) => one(group, 'Final-Recipient'))).toEqual([
      'rfc822; ada@example.com',
      'rfc822; bob@example.com',
    ])
    for (const group of perRecipient) {
      expect(one(group, 'Action')).toBe('failed')
      expect(one(group, 'Status')).toBe('5.1.1')
      expect(one(group, 'Remote-MTA')).toBe('dns; mx.sink.test')
      expect(one(group, 'Diagnostic-Code')).toMatch(/^smtp; 550 5\.1\.1 <(ada|bob)@example\.com>: /)
      expect(Date.parse(one(group, 'Last-Attempt-Date'))).toBe(NOW.getTime())
      expect(group.has('will-retry-until')).toBe(false)
    }

    // The original's headers, exactly; never its body.
    const headers = report.parts[2]?.body ?? ''
    expect(headers).toBe(`${ORIGINAL.toString().split('\r\n\r\n')[0]}\r\n`)
    expect(dsn.raw.toString()).not.toContain('The body, which a bounce does not carry.')
    const original = await simpleParser(Buffer.from(headers))
    expect(original.messageId).toBe('<0123.abc@fairlane.test>')
    expect(report.parts[0]?.body).toContain('<bob@example.com>: host mx.sink.test said: 550 5.1.1')
  })

  it('writes a delay notice for a 4.x.x status: Action delayed, Will-Retry-Until', async () => {
    const report = await parseReport(build('4.2.2').raw)
    const [, recipient] = fieldGroups(report.parts[1]?.body ?? '')
    expect(report.mail.subject).toBe('Delayed Mail (still being retried)')
    expect(one(recipient, 'Action')).toBe('delayed')
    expect(one(recipient, 'Status')).toBe('4.2.2')
    expect(one(recipient, 'Diagnostic-Code')).toMatch(/^smtp; 452 4\.2\.2 <ada@example\.com>: Mailbox full/)
    expect(Date.parse(one(recipient, 'Will-Retry-Until'))).toBeGreaterThan(NOW.getTime())
    expect(report.parts[0]?.body).toContain('THIS IS A WARNING ONLY')
  })

  it('answers any valid status, with a general diagnostic for those it has no words for', () => {
    expect(diagnosticReply('5.7.26', 'a@b.c')).toBe('550 5.7.26 <a@b.c>: delivery failed')
    expect(diagnosticReply('4.4.7', 'a@b.c')).toBe('450 4.4.7 <a@b.c>: delivery deferred, try again later')
    expect(diagnosticReply('5.2.2', 'a@b.c')).toMatch(/^552 5\.2\.2 /)
  })

  it('ends every line with CRLF and never repeats the boundary inside a part', () => {
    const raw = build('5.1.1').raw.toString('latin1')
    expect(raw.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    const boundary = /boundary="([^"]+)"/.exec(raw)?.[1] ?? ''
    expect(raw.split(`--${boundary}`)).toHaveLength(5)
    expect(raw.endsWith(`--${boundary}--\r\n`)).toBe(true)
  })

  it('keeps 8-bit header bytes and fixes bare LFs of an original as received', async () => {
    const raw = Buffer.from('From: shop@example.com\nSubject: Grüße\nMessage-ID: <x@y>\n\nbody\n', 'utf8')
    const dsn = build('5.1.1', ['ada@example.com'], raw)
    const report = await parseReport(dsn.raw)
    expect(report.mail.headers.get('content-transfer-encoding')).toBe('8bit')
    expect(Buffer.from(report.parts[2]?.body ?? '', 'latin1').toString('utf8')).toBe(
      'From: shop@example.com\r\nSubject: Grüße\r\nMessage-ID: <x@y>\r\n',
    )
  })

  it('refuses what no MTA would write', () => {
    expect(() => build('5.1.1', [])).toThrow(/at least one recipient/)
    expect(() => build('2.0.0')).toThrow(/not a 4\.x\.x or 5\.x\.x status/)
  })
})
