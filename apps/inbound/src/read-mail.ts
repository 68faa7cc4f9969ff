import { createHash } from 'node:crypto'
import { type FeedbackMail, REPORT_PART_TYPES, sanitiseOptional } from '@fairlane/core'
import { type HeaderLines, simpleParser } from 'mailparser'

/** Text read from one message: enough for any report's prose, far less than what would cost a parse. */
const MAX_TEXT_CHARS = 256_000
const MAX_PART_CHARS = 256_000

const REPORT_PARTS: ReadonlySet<string> = new Set(REPORT_PART_TYPES)
// Non-fatal: invalid UTF-8 in a report part (a diagnostic in Latin-1) becomes U+FFFD, never an error.
const utf8 = new TextDecoder('utf-8')

export interface ReadMail {
  mail: FeedbackMail
  /**
   * The report's own identity, for the log: its Message-ID, else a digest of its body. Never a dedupe
   * key: the sender chooses it (a message takes one event per kind instead, see `applyFeedback`).
   */
  reportId: string
}

/**
 * MIME to `FeedbackMail` with mailparser: the top-level headers as written, the human-readable text
 * (charsets decoded), and the report parts (`message/delivery-status` kept as a part rather than
 * folded into the text, the feedback report, the returned message or its headers) as UTF-8 text.
 */
export async function readMail(raw: Buffer): Promise<ReadMail> {
  const parsed = await simpleParser(raw, {
    keepDeliveryStatus: true,
    // A returned message (message/rfc822) stays one part, even when marked inline, so its headers can be read.
    ignoreEmbedded: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    keepCidLinks: true,
    checksumAlgo: false,
    maxHtmlLengthToParse: 1_000_000,
  })
  const parts = parsed.attachments.flatMap((attachment) => {
    const contentType = attachment.contentType.toLowerCase()
    if (!REPORT_PARTS.has(contentType)) return []
    return [
      {
        contentType,
        content: utf8.decode(attachment.content.subarray(0, MAX_PART_CHARS * 4)).slice(0, MAX_PART_CHARS),
      },
    ]
  })
  const headers = headerList(parsed.headerLines)
  const messageId = sanitiseOptional(headers.find((header) => header.name === 'message-id')?.value, 255)
  return {
    mail: {
      headers,
      subject: parsed.subject ?? '',
      text: (parsed.text ?? '').slice(0, MAX_TEXT_CHARS),
      parts,
    },
    reportId: messageId ? `message-id:${messageId}` : `body:${bodyDigest(raw)}`,
  }
}

/** Header lines unfolded (RFC 5322 §2.2.3), names lowercased, values as written. */
function headerList(lines: HeaderLines): { name: string; value: string }[] {
  return lines.flatMap(({ key, line }) => {
    const colon = line.indexOf(':')
    if (colon < 0) return []
    return [
      {
        name: key.toLowerCase(),
        value: line
          .slice(colon + 1)
          .replace(/\r?\n(?=[ \t])/g, '')
          .trim(),
      },
    ]
  })
}

/**
 * A report without a Message-ID is known by its body: the headers change on the way (each relay adds
 * a Received line), the body a sender retransmits does not.
 */
function bodyDigest(raw: Buffer): string {
  const crlf = raw.indexOf('\r\n\r\n')
  const lf = raw.indexOf('\n\n')
  const end = crlf === -1 ? lf : lf === -1 ? crlf : Math.min(crlf, lf)
  return createHash('sha256')
    .update(end === -1 ? raw : raw.subarray(end))
    .digest('hex')
}
