import { randomUUID } from 'node:crypto'

/** A delivery status notification as Postfix writes one (RFC 3464), to the return path `to`. */
export function dsn(input: {
  to: string
  recipient: string
  status?: string
  action?: 'failed' | 'delayed' | 'delivered'
  diagnostic?: string
  messageId?: string
}): string {
  const status = input.status ?? '5.1.1'
  const action = input.action ?? (status.startsWith('4.') ? 'delayed' : 'failed')
  const statusLines = status === '' ? [] : [`Status: ${status}`]
  return lines([
    'From: MAILER-DAEMON@mx.remote.test (Mail Delivery System)',
    `To: ${input.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${input.messageId ?? randomUUID()}@mx.remote.test>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn-b"',
    '',
    '--dsn-b',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.remote.test.',
    '',
    '--dsn-b',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.remote.test',
    '',
    `Final-Recipient: rfc822; ${input.recipient}`,
    `Action: ${action}`,
    ...statusLines,
    'Remote-MTA: dns; mailbox.remote.test',
    ...(input.diagnostic !== undefined ? [`Diagnostic-Code: smtp; ${input.diagnostic}`] : []),
    '',
    '--dsn-b--',
    '',
  ])
}

/** An ARF complaint (RFC 5965) about a message to `recipient`, to the return path `to`. */
export function arf(input: {
  to: string
  recipient: string
  feedbackType?: string
  messageId?: string
}): string {
  return lines([
    'From: feedback@isp.test',
    `To: ${input.to}`,
    'Subject: Abuse report',
    `Message-ID: <${input.messageId ?? randomUUID()}@isp.test>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="arf-b"',
    '',
    '--arf-b',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--arf-b',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${input.feedbackType ?? 'abuse'}`,
    'User-Agent: ISP-FBL/2.0',
    'Version: 1',
    `Original-Mail-From: <${input.to}>`,
    `Original-Rcpt-To: <${input.recipient}>`,
    '',
    '--arf-b',
    'Content-Type: text/rfc822-headers',
    '',
    `To: ${input.recipient}`,
    'Subject: December news',
    '',
    '--arf-b--',
    '',
  ])
}

export function outOfOffice(to: string): string {
  return lines([
    'From: reader@example.net',
    `To: ${to}`,
    'Subject: Out of Office: December news',
    'Auto-Submitted: auto-replied',
    `Message-ID: <${randomUUID()}@example.net>`,
    '',
    'I am away until January.',
    '',
  ])
}

function lines(all: string[]): string {
  return all.join('\r\n')
}
