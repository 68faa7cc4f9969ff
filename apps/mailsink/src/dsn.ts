import {
  fieldLines,
  headerSection,
  multipartReport,
  newMessageId,
  oneLine,
  rfc5322Date,
  textPart,
} from './report-mime'

/** What a report is about: the message the sink accepted, as it arrived. */
export interface OriginalMessage {
  /** The message as received (DATA). */
  raw: Buffer
  /** MAIL FROM: where the report goes. */
  envelopeFrom: string
  arrivedAt: Date
  /** The client's IP address (ARF's Source-IP). */
  sourceIp?: string | undefined
}

export interface DsnInput {
  /** The reporting MTA's host name: Reporting-MTA, Remote-MTA and MAILER-DAEMON@ it. */
  mtaName: string
  original: OriginalMessage
  /** The recipients the notification reports on (RCPT TO, as the client sent them); at least one. */
  recipients: readonly string[]
  /** An enhanced status code (RFC 3463): 5.x.x a failure, 4.x.x a delay. */
  status: string
  /** When the notification is written (Date, Last-Attempt-Date). */
  now?: Date
  messageId?: string
}

export interface Report {
  /** The whole message, CRLF line ends, ready for DATA. */
  raw: Buffer
  messageId: string
}

/** How long the "delayed" notice says delivery will still be tried, as Postfix's default queue life. */
const RETRY_FOR_MS = 5 * 24 * 60 * 60 * 1000

/**
 * The remote server's reply for the status codes tests ask for most, in the words large receivers
 * use; any other status gets its RFC 3463 meaning in general terms.
 */
const REPLIES: Record<string, { code: number; text: string }> = {
  '5.1.1': { code: 550, text: 'Recipient address rejected: User unknown in virtual mailbox table' },
  '5.1.2': { code: 550, text: 'Host or domain name not found' },
  '5.1.10': { code: 556, text: 'Recipient address has null MX' },
  '5.2.1': { code: 550, text: 'Mailbox disabled, not accepting messages' },
  '5.2.2': { code: 552, text: 'Mailbox full: the recipient is over quota' },
  '5.3.4': { code: 552, text: 'Message size exceeds fixed limit' },
  '5.7.1': { code: 550, text: 'Message rejected by policy' },
  '4.2.2': { code: 452, text: 'Mailbox full: the recipient is over quota, try again later' },
  '4.4.1': { code: 421, text: 'No answer from host, try again later' },
  '4.7.1': { code: 451, text: 'Greylisted, try again later' },
}

/** The SMTP reply the "remote" server gave for a status: `550 5.1.1 <a@b>: Recipient address rejected…`. */
export function diagnosticReply(status: string, recipient: string): string {
  const known = REPLIES[status]
  const failed = status.startsWith('5')
  const code = known?.code ?? (failed ? 550 : 450)
  const text = known?.text ?? (failed ? 'delivery failed' : 'delivery deferred, try again later')
  return `${code} ${status} <${recipient}>: ${text}`
}

/**
 * A delivery status notification as an MTA writes it (RFC 3464, in the shape Postfix sends):
 * multipart/report; report-type=delivery-status with a human-readable part, a message/delivery-status
 * part (one group per recipient: Action `failed` for 5.x.x, `delayed` for 4.x.x) and the original's
 * headers as text/rfc822-headers. From MAILER-DAEMON, To the original's envelope sender; it is sent
 * with the null envelope sender (`MAIL FROM:<>`) so that it can never cause another bounce.
 */
export function buildDsn(input: DsnInput): Report {
  const { mtaName, original, recipients, status } = input
  if (recipients.length === 0) throw new RangeError('a DSN reports on at least one recipient')
  if (!/^[45]\.\d{1,3}\.\d{1,3}$/.test(status)) throw new RangeError(`not a 4.x.x or 5.x.x status: ${status}`)
  const now = input.now ?? new Date()
  const messageId = input.messageId ?? newMessageId(mtaName)
  const failed = status.startsWith('5')

  const perMessage = fieldLines([
    ['Reporting-MTA', `dns; ${mtaName}`],
    ['Arrival-Date', rfc5322Date(original.arrivedAt)],
  ])
  const perRecipient = recipients.map((recipient) =>
    fieldLines([
      ['Final-Recipient', `rfc822; ${recipient}`],
      ['Action', failed ? 'failed' : 'delayed'],
      ['Status', status],
      ['Remote-MTA', `dns; ${mtaName}`],
      ['Diagnostic-Code', `smtp; ${diagnosticReply(status, recipient)}`],
      ['Last-Attempt-Date', rfc5322Date(now)],
      ['Will-Retry-Until', failed ? undefined : rfc5322Date(new Date(now.getTime() + RETRY_FOR_MS))],
    ]),
  )
  const deliveryStatus = [perMessage, ...perRecipient].join('\r\n')

  const raw = multipartReport(
    'delivery-status',
    [
      `Date: ${rfc5322Date(now)}`,
      `From: Mail Delivery System <MAILER-DAEMON@${mtaName}>`,
      `To: <${original.envelopeFrom}>`,
      `Subject: ${failed ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)'}`,
      `Message-ID: ${messageId}`,
      // RFC 3834: a DSN is an automatic response; auto-responders must not answer it.
      'Auto-Submitted: auto-replied',
    ],
    [
      textPart(humanReadable(mtaName, recipients, status, failed)),
      { headers: ['Content-Type: message/delivery-status'], body: Buffer.from(deliveryStatus, 'utf8') },
      { headers: ['Content-Type: text/rfc822-headers'], body: headerSection(original.raw) },
    ],
  )
  return { raw, messageId }
}

function humanReadable(mtaName: string, recipients: readonly string[], status: string, failed: boolean) {
  const lines = [`This is the mail system at host ${mtaName}.`, '']
  if (failed) {
    lines.push(
      "I'm sorry to have to inform you that your message could not",
      'be delivered to one or more recipients. Its headers are attached below.',
    )
  } else {
    lines.push(
      'THIS IS A WARNING ONLY. YOU DO NOT NEED TO RESEND YOUR MESSAGE.',
      '',
      'Your message could not be delivered for some time to the recipients',
      'below. Delivery will be tried again until the message expires.',
    )
  }
  lines.push('')
  for (const recipient of recipients) {
    lines.push(
      `<${oneLine(recipient)}>: host ${mtaName} said: ${diagnosticReply(status, oneLine(recipient))}`,
    )
  }
  return `${lines.join('\n')}\n`
}
