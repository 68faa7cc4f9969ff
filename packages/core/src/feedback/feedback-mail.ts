import type { BounceKind, DsnAction } from './status-code'

/**
 * A message that arrived at a return-path address, as the inbound server's MIME reader hands it
 * over: decoded to text (invalid UTF-8 already replaced), nothing here parses MIME.
 */
export interface FeedbackMail {
  /** Top-level header fields in order: names lowercased, values unfolded, not decoded. */
  headers: readonly { name: string; value: string }[]
  /** The Subject, decoded (RFC 2047). */
  subject: string
  /** The human-readable text parts, joined. */
  text: string
  /** The parts a report is read from: `message/delivery-status`, `message/feedback-report`, the returned message. */
  parts: readonly FeedbackPart[]
}

export interface FeedbackPart {
  /** Lowercase media type without parameters: `message/delivery-status`, `text/rfc822-headers`… */
  contentType: string
  content: string
}

/** The media types a report's machine-readable part and returned message come in. */
export const REPORT_PART_TYPES = [
  'message/delivery-status',
  'message/global-delivery-status',
  'message/feedback-report',
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/rfc822-headers',
  'message/global-headers',
] as const

/** One recipient's fate in a delivery report. */
export interface BounceRecipient {
  finalRecipient?: string
  originalRecipient?: string
  action: DsnAction
  /** `5.1.1`; derived from the diagnostic or the prose when the report's Status field has none. */
  status: string
  kind: BounceKind
  /** Sanitised (`sanitiseText`): at most 1,000 characters, no control characters. */
  diagnostic?: string
  remoteMta?: string
}

/** The original message as the report returns it (headers only; often redacted by the provider). */
export interface OriginalHeaders {
  messageId?: string
  from?: string
  to?: string
  subject?: string
  returnPath?: string
}

/** What a message to a return path says, read by `readFeedback`. */
export type Feedback =
  | {
      kind: 'bounce'
      /** Failed or delayed recipients only, each at least once. */
      recipients: readonly BounceRecipient[]
      reportingMta?: string
      /** `dsn`: a message/delivery-status part; `text`: a provider's prose bounce. */
      format: 'dsn' | 'text'
      original?: OriginalHeaders
    }
  | {
      kind: 'complaint'
      /** `abuse`, `fraud`, `virus`, `other` (RFC 5965), lowercased. */
      feedbackType: string
      userAgent?: string
      originalMailFrom?: string
      originalRcptTo: readonly string[]
      reportingMta?: string
      original?: OriginalHeaders
    }
  /** An out-of-office or other automatic answer (RFC 3834): recorded, never a bounce. */
  | { kind: 'auto-reply'; reason: string }
  /** A report that names no failure: a success DSN, a not-spam or authentication-failure report. */
  | { kind: 'ignored'; reason: string }
  /** Neither a report nor an automatic answer we can read: kept in the log, changes nothing. */
  | { kind: 'unparseable'; reason: string }

/**
 * The longest header value a reader matches against: RFC 5322's line limit (§2.1.1). A report's
 * headers are written by whoever sent it, and mailparser lets one grow to 1 MB; every pattern run on
 * a header sees at most this much, so its cost is bounded whatever the pattern's shape.
 */
export const MAX_HEADER_CHARS = 998

/** The first value of a top-level header (name lowercase), cut to `MAX_HEADER_CHARS`. */
export function headerValue(mail: FeedbackMail, name: string): string | undefined {
  return mail.headers.find((header) => header.name === name)?.value.slice(0, MAX_HEADER_CHARS)
}

/** The decoded Subject, cut to `MAX_HEADER_CHARS`. */
export function subjectLine(mail: FeedbackMail): string {
  return mail.subject.slice(0, MAX_HEADER_CHARS)
}

/** Top-level media type parameters: `multipart/report; report-type=delivery-status` → its report type. */
export function reportType(mail: FeedbackMail): string | undefined {
  const contentType = headerValue(mail, 'content-type')
  if (!contentType || !/^\s*multipart\/report\b/i.test(contentType)) return undefined
  const match = /;\s*report-type\s*=\s*"?([A-Za-z0-9/._-]+)"?/i.exec(contentType)
  return match?.[1]?.toLowerCase()
}
