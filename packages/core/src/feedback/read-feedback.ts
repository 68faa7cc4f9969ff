import { autoReplyReason } from './detect-auto-reply'
import { type Feedback, type FeedbackMail, type FeedbackPart, reportType } from './feedback-mail'
import { readDeliveryStatus } from './read-delivery-status'
import { readFeedbackReport, readOriginalHeaders } from './read-feedback-report'
import { bounceEvidence, readTextBounce } from './read-text-bounce'

const DELIVERY_STATUS = new Set(['message/delivery-status', 'message/global-delivery-status'])
const RETURNED = new Set([
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/rfc822-headers',
  'message/global-headers',
])

/**
 * What a message that arrived at a return path says, in this order: a complaint report (ARF), a
 * delivery report (DSN), a prose bounce with a readable status, an automatic reply; anything else is
 * unparseable. A report is believed over prose, and a bounce over an automatic-reply header (bounces
 * carry `Auto-Submitted` too). Nothing is guessed: a failure whose status cannot be read is
 * `unparseable`, never a hard bounce.
 */
export function readFeedback(mail: FeedbackMail): Feedback {
  const type = reportType(mail)
  const arf = mail.parts.find((part) => part.contentType === 'message/feedback-report')
  const returned = mail.parts.find((part) => RETURNED.has(part.contentType))
  if (arf) return readFeedbackReport(arf.content, returned)
  if (type === 'feedback-report')
    return { kind: 'unparseable', reason: 'feedback report without its report part' }

  const dsn = mail.parts.find((part) => DELIVERY_STATUS.has(part.contentType))
  if (dsn) return fromDeliveryStatus(mail, dsn, returned)

  const evidence = bounceEvidence(mail)
  if (evidence === 'strong' || type === 'delivery-status') return fromProse(mail, returned)
  const autoReply = autoReplyReason(mail)
  if (autoReply) return { kind: 'auto-reply', reason: autoReply }
  if (evidence === 'subject') return fromProse(mail, returned)
  return { kind: 'unparseable', reason: 'neither a delivery report, a complaint nor an automatic reply' }
}

function fromDeliveryStatus(
  mail: FeedbackMail,
  dsn: FeedbackPart,
  returned: FeedbackPart | undefined,
): Feedback {
  const status = readDeliveryStatus(dsn.content)
  if (status.failures.length > 0) {
    const original = returned ? readOriginalHeaders(returned.content) : undefined
    return {
      kind: 'bounce',
      format: 'dsn',
      recipients: status.failures,
      ...(status.reportingMta ? { reportingMta: status.reportingMta } : {}),
      ...(original ? { original } : {}),
    }
  }
  if (status.unreadable === 0 && status.successes > 0) {
    return { kind: 'ignored', reason: 'delivery report of a successful delivery' }
  }
  // The report part names no readable status: the prose beside it sometimes does.
  const prose = fromProse(mail, returned)
  if (prose.kind === 'bounce') return prose
  return { kind: 'unparseable', reason: 'delivery report without a readable status' }
}

function fromProse(mail: FeedbackMail, returned: FeedbackPart | undefined): Feedback {
  const recipient = readTextBounce(mail)
  if (!recipient) return { kind: 'unparseable', reason: 'bounce without a readable status' }
  const original = returned ? readOriginalHeaders(returned.content) : undefined
  return { kind: 'bounce', format: 'text', recipients: [recipient], ...(original ? { original } : {}) }
}
