import type { Feedback, FeedbackPart, OriginalHeaders } from './feedback-mail'
import { type FieldGroup, field, fields, parseFieldGroups, parseHeaderBlock, untyped } from './report-fields'
import { sanitiseOptional } from './sanitise-text'

/**
 * Feedback types (RFC 5965 §7.3, RFC 6591) that are not a person's complaint: a report that a message
 * was wrongly filed as spam, and DMARC/SPF authentication failure reports.
 */
const NOT_COMPLAINTS = new Set(['not-spam', 'auth-failure', 'dkim', 'spf', 'dmarc'])

/**
 * Reads an ARF report (RFC 5965): the `message/feedback-report` part's fields and the returned
 * message's headers. Any feedback type but `not-spam` and the authentication-failure ones is a
 * complaint (an unknown type is `other` by the RFC, and a person still pressed "spam").
 */
export function readFeedbackReport(report: string, original: FeedbackPart | undefined): Feedback {
  const group = parseFieldGroups(report)[0]
  const feedbackType = field(group, 'feedback-type')?.toLowerCase().split(/[\s;]/)[0]
  if (feedbackType === undefined || feedbackType === '') {
    return { kind: 'unparseable', reason: 'feedback report without a Feedback-Type' }
  }
  if (NOT_COMPLAINTS.has(feedbackType)) {
    return { kind: 'ignored', reason: `feedback report of type ${sanitiseOptional(feedbackType, 40)}` }
  }
  const complaint: Extract<Feedback, { kind: 'complaint' }> = {
    kind: 'complaint',
    feedbackType: sanitiseOptional(feedbackType, 40) ?? 'other',
    originalRcptTo: fields(group, 'original-rcpt-to').flatMap((value) => {
      const address = sanitiseOptional(unbracket(value), 320)
      return address ? [address.toLowerCase()] : []
    }),
  }
  const userAgent = sanitiseOptional(field(group, 'user-agent'), 200)
  const originalMailFrom = sanitiseOptional(unbracket(field(group, 'original-mail-from')), 320)
  const reportingMta = sanitiseOptional(untyped(field(group, 'reporting-mta')), 255)
  if (userAgent) complaint.userAgent = userAgent
  if (originalMailFrom) complaint.originalMailFrom = originalMailFrom.toLowerCase()
  if (reportingMta) complaint.reportingMta = reportingMta
  const headers = original ? readOriginalHeaders(original.content) : undefined
  if (headers) complaint.original = headers
  return complaint
}

/** The returned message's identifying headers (its body, if any, is not read). */
export function readOriginalHeaders(message: string): OriginalHeaders | undefined {
  const group: FieldGroup = parseHeaderBlock(message)
  const headers: OriginalHeaders = {}
  const pick = (name: string, key: keyof OriginalHeaders, max: number) => {
    const value = sanitiseOptional(field(group, name), max)
    if (value) headers[key] = value
  }
  pick('message-id', 'messageId', 255)
  pick('from', 'from', 320)
  pick('to', 'to', 320)
  pick('subject', 'subject', 255)
  pick('return-path', 'returnPath', 320)
  return Object.keys(headers).length > 0 ? headers : undefined
}

function unbracket(value: string | undefined): string | undefined {
  return value?.trim().replace(/^<(.*)>$/, '$1')
}
