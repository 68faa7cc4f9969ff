import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import { ARF_USER_AGENT, buildArf } from './arf'
import { fieldGroups, one, parseReport } from './test-support/report-parts'

const ORIGINAL = Buffer.from(
  [
    'From: "Shop" <News@Shop.Example>',
    'To: ada@example.com',
    'Subject: Winter sale',
    'Message-ID: <0123.abc@fairlane.test>',
    'List-Unsubscribe: <https://fairlane.test/u/token>',
    '',
    'Buy now.',
    '',
  ].join('\r\n'),
)
const ARRIVED = new Date('2026-12-03T10:00:00.000Z')
const SENDER = 'b+1.abc.sig@bounces.fairlane.test'

function build(recipients: string[], raw = ORIGINAL, envelopeFrom = SENDER) {
  return buildArf({
    mtaName: 'mx.sink.test',
    original: { raw, envelopeFrom, arrivedAt: ARRIVED, sourceIp: '192.0.2.7' },
    recipients,
    now: new Date('2026-12-03T11:00:00.000Z'),
    messageId: '<arf-1@mx.sink.test>',
  })
}

describe('buildArf', () => {
  it('writes an abuse report (RFC 5965) with the original message whole', async () => {
    const report = await parseReport(build(['ada@example.com', 'bob@example.com']).raw)

    expect(report.reportType).toBe('feedback-report')
    expect(report.mail.from?.value).toEqual([{ name: 'Feedback Loop', address: 'fbl@mx.sink.test' }])
    expect(report.mail.to).toMatchObject({ value: [{ address: SENDER }] })
    expect(report.mail.messageId).toBe('<arf-1@mx.sink.test>')
    expect(report.parts.map((part) => part.contentType)).toEqual([
      'text/plain',
      'message/feedback-report',
      'message/rfc822',
    ])
    expect(report.parts[0]?.body).toContain('received from IP 192.0.2.7')

    const groups = fieldGroups(report.parts[1]?.body ?? '')
    expect(groups).toHaveLength(1)
    const [fields] = groups
    expect(one(fields, 'Feedback-Type')).toBe('abuse')
    expect(one(fields, 'User-Agent')).toBe(ARF_USER_AGENT)
    expect(one(fields, 'Version')).toBe('1')
    expect(one(fields, 'Original-Mail-From')).toBe(`<${SENDER}>`)
    expect(fields?.get('original-rcpt-to')).toEqual(['<ada@example.com>', '<bob@example.com>'])
    expect(Date.parse(one(fields, 'Arrival-Date'))).toBe(ARRIVED.getTime())
    expect(one(fields, 'Reporting-MTA')).toBe('dns; mx.sink.test')
    expect(one(fields, 'Source-IP')).toBe('192.0.2.7')
    expect(one(fields, 'Reported-Domain')).toBe('shop.example')

    // mailparser hands the original over as an attachment; read it as its own message.
    const attached = report.mail.attachments.find((part) => part.contentType === 'message/rfc822')
    expect(attached).toBeDefined()
    const original = await simpleParser(attached?.content ?? Buffer.alloc(0))
    expect(original.messageId).toBe('<0123.abc@fairlane.test>')
    expect(original.subject).toBe('Winter sale')
    expect(original.headerLines.find((line) => line.key === 'list-unsubscribe')?.line).toBe(
      'List-Unsubscribe: <https://fairlane.test/u/token>',
    )
    expect(original.text?.trim()).toBe('Buy now.')
  })

  it("names the envelope sender's domain when the From header has no address", async () => {
    const raw = Buffer.from('From: undisclosed\r\nMessage-ID: <x@y>\r\n\r\nhi\r\n')
    const report = await parseReport(build(['ada@example.com'], raw).raw)
    const [fields] = fieldGroups(report.parts[1]?.body ?? '')
    expect(one(fields, 'Reported-Domain')).toBe('bounces.fairlane.test')
  })

  it('ends every line with CRLF', () => {
    const raw = build(['ada@example.com']).raw.toString('latin1')
    expect(raw.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
  })

  it('refuses a report about nobody', () => {
    expect(() => build([])).toThrow(/at least one recipient/)
  })
})
