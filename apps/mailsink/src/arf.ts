import type { OriginalMessage, Report } from './dsn'
import {
  addressDomain,
  domainOf,
  fieldLines,
  headerSection,
  headerValue,
  multipartReport,
  newMessageId,
  rfc5322Date,
  textPart,
  withCrlf,
} from './report-mime'

export interface ArfInput {
  /** The reporting MTA's host name: Reporting-MTA, and the feedback loop's address is at it. */
  mtaName: string
  original: OriginalMessage
  /** The recipients who complained (Original-Rcpt-To, one field each); at least one. */
  recipients: readonly string[]
  now?: Date
  messageId?: string
}

/** What the report names as its generator (User-Agent is required by RFC 5965). */
export const ARF_USER_AGENT = 'Fairlane-Mailsink/1.0'

/**
 * An abuse report as a mailbox provider's feedback loop sends it (RFC 5965 ARF): multipart/report;
 * report-type=feedback-report with a human-readable part, a message/feedback-report part
 * (Feedback-Type: abuse) and the original message whole as message/rfc822, so the reader finds its
 * Message-ID and List-Unsubscribe as the provider saw them. From the feedback loop's address, To the
 * original's envelope sender, sent with the null envelope sender like every automatic report.
 */
export function buildArf(input: ArfInput): Report {
  const { mtaName, original, recipients } = input
  if (recipients.length === 0) throw new RangeError('an ARF report names at least one recipient')
  const now = input.now ?? new Date()
  const messageId = input.messageId ?? newMessageId(mtaName)
  const headers = headerSection(original.raw)
  // RFC 6650 §5: the domain the report is about, which for a sender is its From domain.
  const reportedDomain =
    addressDomain(headerValue(headers, 'From')) ?? (domainOf(original.envelopeFrom) || undefined)
  const source = original.sourceIp ? ` from IP ${original.sourceIp}` : ''

  const report = fieldLines([
    ['Feedback-Type', 'abuse'],
    ['User-Agent', ARF_USER_AGENT],
    ['Version', '1'],
    ['Original-Mail-From', `<${original.envelopeFrom}>`],
    ...recipients.map((recipient) => ['Original-Rcpt-To', `<${recipient}>`] as const),
    ['Arrival-Date', rfc5322Date(original.arrivedAt)],
    ['Reporting-MTA', `dns; ${mtaName}`],
    ['Source-IP', original.sourceIp],
    ['Reported-Domain', reportedDomain],
  ])

  const raw = multipartReport(
    'feedback-report',
    [
      `Date: ${rfc5322Date(now)}`,
      `From: Feedback Loop <fbl@${mtaName}>`,
      `To: <${original.envelopeFrom}>`,
      'Subject: Abuse report',
      `Message-ID: ${messageId}`,
      'Auto-Submitted: auto-generated',
    ],
    [
      textPart(
        [
          `This is an email abuse report for an email message received${source} on ${rfc5322Date(original.arrivedAt)}.`,
          'A recipient marked it as spam. For more information about this format please see',
          'https://www.rfc-editor.org/rfc/rfc5965.',
          '',
        ].join('\n'),
      ),
      { headers: ['Content-Type: message/feedback-report'], body: Buffer.from(report, 'utf8') },
      {
        headers: ['Content-Type: message/rfc822'],
        body: original.raw.length > 0 ? withCrlf(original.raw) : headers,
      },
    ],
  )
  return { raw, messageId }
}
