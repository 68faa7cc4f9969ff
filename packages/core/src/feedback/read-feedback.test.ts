import { describe, expect, it } from 'vitest'
import type { FeedbackMail } from './feedback-mail'
import { readDeliveryStatus } from './read-delivery-status'
import { readFeedback } from './read-feedback'

function mail(
  partial: Partial<Omit<FeedbackMail, 'headers'>> & { headers?: Record<string, string> },
): FeedbackMail {
  const { headers = {}, ...rest } = partial
  return {
    subject: '',
    text: '',
    parts: [],
    ...rest,
    headers: Object.entries(headers).map(([name, value]) => ({ name: name.toLowerCase(), value })),
  }
}

const dsnHeaders = { 'Content-Type': 'multipart/report; report-type=delivery-status; boundary="x"' }

describe('readDeliveryStatus', () => {
  it('reads every recipient group, folded fields unfolded, types stripped', () => {
    const status = readDeliveryStatus(
      [
        'Reporting-MTA: dns; mx.example.net',
        'Arrival-Date: Mon, 7 Dec 2026 10:00:00 +0000',
        '',
        'Final-Recipient: rfc822; Bob@Example.net',
        'Original-Recipient: rfc822;bob@example.net',
        'Action: failed',
        'Status: 5.1.1',
        'Remote-MTA: dns; mx2.example.net',
        'Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to reach',
        '    does not exist.',
        '',
        'Final-Recipient: rfc822; carol@example.net',
        'Action: delayed',
        'Status: 4.4.1',
        '',
        'Final-Recipient: rfc822; dave@example.net',
        'Action: delivered',
        'Status: 2.0.0',
      ].join('\r\n'),
    )
    expect(status).toEqual({
      reportingMta: 'mx.example.net',
      successes: 1,
      unreadable: 0,
      failures: [
        {
          finalRecipient: 'bob@example.net',
          originalRecipient: 'bob@example.net',
          action: 'failed',
          status: '5.1.1',
          kind: 'hard',
          remoteMta: 'mx2.example.net',
          diagnostic: '550-5.1.1 The email account that you tried to reach does not exist.',
        },
        { finalRecipient: 'carol@example.net', action: 'delayed', status: '4.4.1', kind: 'soft' },
      ],
    })
  })

  it('takes the status from the diagnostic when the Status field is missing or malformed', () => {
    const status = readDeliveryStatus(
      'Final-Recipient: rfc822; a@b.c\nAction: failed\nStatus: failed\nDiagnostic-Code: smtp; 550 5.2.1 disabled\n',
    )
    expect(status.failures[0]).toMatchObject({ status: '5.2.1', kind: 'hard' })
    const fromReply = readDeliveryStatus(
      'Final-Recipient: rfc822; a@b.c\nDiagnostic-Code: smtp; 452 mailbox full\n',
    )
    expect(fromReply.failures[0]).toMatchObject({ status: '4.2.2', action: 'delayed', kind: 'soft' })
  })

  it('counts a recipient with no status anywhere as unreadable', () => {
    expect(
      readDeliveryStatus('Reporting-MTA: dns; x\n\nFinal-Recipient: rfc822; a@b.c\nAction: failed\n'),
    ).toEqual({
      reportingMta: 'x',
      failures: [],
      unreadable: 1,
      successes: 0,
    })
  })
})

describe('readFeedback', () => {
  it('reads a DSN part as a bounce with the returned message’s headers', () => {
    const feedback = readFeedback(
      mail({
        headers: dsnHeaders,
        parts: [
          {
            contentType: 'message/delivery-status',
            content: 'Final-Recipient: rfc822; a@b.c\nAction: failed\nStatus: 5.1.1\n',
          },
          { contentType: 'text/rfc822-headers', content: 'Message-ID: <m1@fairlane>\nSubject: Hi\n' },
        ],
      }),
    )
    expect(feedback).toMatchObject({
      kind: 'bounce',
      format: 'dsn',
      recipients: [{ status: '5.1.1', kind: 'hard' }],
      original: { messageId: '<m1@fairlane>', subject: 'Hi' },
    })
  })

  it('calls a DSN of successes ignored, and one with no readable status unparseable', () => {
    expect(
      readFeedback(
        mail({
          parts: [
            {
              contentType: 'message/delivery-status',
              content: 'Final-Recipient: rfc822; a@b.c\nAction: delivered\nStatus: 2.0.0\n',
            },
          ],
        }),
      ).kind,
    ).toBe('ignored')
    expect(
      readFeedback(
        mail({
          headers: dsnHeaders,
          text: 'Your message could not be delivered.',
          parts: [
            {
              contentType: 'message/delivery-status',
              content: 'Final-Recipient: rfc822; a@b.c\nAction: failed\n',
            },
          ],
        }),
      ),
    ).toEqual({ kind: 'unparseable', reason: 'delivery report without a readable status' })
  })

  it('reads an ARF complaint; not-spam and auth-failure reports are ignored', () => {
    const report = (type: string) =>
      mail({
        headers: { 'Content-Type': 'multipart/report; report-type=feedback-report; boundary=x' },
        parts: [
          {
            contentType: 'message/feedback-report',
            content: `Feedback-Type: ${type}\nUser-Agent: SomeGenerator/1.0\nVersion: 1\nOriginal-Mail-From: <b-x@bounces.example>\nOriginal-Rcpt-To: <Bob@example.net>\n`,
          },
        ],
      })
    expect(readFeedback(report('abuse'))).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'SomeGenerator/1.0',
      originalMailFrom: 'b-x@bounces.example',
      originalRcptTo: ['bob@example.net'],
    })
    expect(readFeedback(report('not-spam')).kind).toBe('ignored')
    expect(readFeedback(report('auth-failure')).kind).toBe('ignored')
  })

  it('believes a bounce over the Auto-Submitted header every bounce carries', () => {
    const feedback = readFeedback(
      mail({
        headers: { From: 'MAILER-DAEMON@mx.example.net', 'Auto-Submitted': 'auto-replied' },
        subject: 'failure notice',
        text: "Hi. This is the qmail-send program.\n<bob@example.net>:\nRemote host said: 550 5.1.1 no mailbox here\nThis is a permanent error; I've given up.",
      }),
    )
    expect(feedback).toMatchObject({
      kind: 'bounce',
      format: 'text',
      recipients: [{ status: '5.1.1', kind: 'hard' }],
    })
  })

  it('records an out-of-office as an auto-reply, not a bounce', () => {
    expect(
      readFeedback(mail({ headers: { 'Auto-Submitted': 'auto-replied' }, subject: 'Re: hello' })),
    ).toEqual({
      kind: 'auto-reply',
      reason: 'Auto-Submitted: auto-replied',
    })
    expect(readFeedback(mail({ headers: { Precedence: 'auto_reply' } })).kind).toBe('auto-reply')
    expect(readFeedback(mail({ subject: 'Out of Office: back on Monday' })).kind).toBe('auto-reply')
    expect(readFeedback(mail({ headers: { 'Auto-Submitted': 'no' }, subject: 'hello' })).kind).toBe(
      'unparseable',
    )
  })

  it('never guesses: a bounce with no status, no code and no wording of permanence is unparseable', () => {
    expect(
      readFeedback(
        mail({ headers: { From: 'postmaster@example.net' }, subject: 'Undeliverable', text: 'Sorry.' }),
      ),
    ).toEqual({ kind: 'unparseable', reason: 'bounce without a readable status' })
  })
})
