import { randomUUID } from 'node:crypto'
import { type HeaderLines, simpleParser } from 'mailparser'
import { UNSIGNED } from './auth'
import type { ReceiverIdentity } from './receiver-faults'
import type { StoredMessage } from './store'

/** Where a message came in: the receiver that took it (null: the usual listener) and the client's address. */
export interface Arrival {
  receiver: ReceiverIdentity | null
  sourceAddress: string
  /** Whether the session had switched to TLS (STARTTLS) when the message came. */
  tls: boolean
}

const UNKNOWN_ARRIVAL: Arrival = { receiver: null, sourceAddress: '', tls: false }

export interface Envelope {
  /** MAIL FROM; empty for the null sender. */
  from: string
  to: readonly string[]
}

/**
 * Turns the raw DATA of an accepted message and its envelope into the record the API serves.
 * Recipients come from the envelope, not the To header, because that is where the mail was
 * actually delivered (Bcc recipients appear nowhere else). `auth` starts as unsigned; the SMTP
 * side checks signed messages (auth.ts).
 */
export async function toStoredMessage(
  raw: Buffer,
  envelope: Envelope,
  receivedAt: Date = new Date(),
  arrival: Arrival = UNKNOWN_ARRIVAL,
): Promise<StoredMessage> {
  const parsed = await simpleParser(raw, {
    // The sink never shows cid: images inline, and skipping the HTML rendering of text parts and
    // attachment hashing keeps parsing cheap when a benchmark sends tens of thousands of messages.
    keepCidLinks: true,
    skipTextToHtml: true,
    checksumAlgo: false,
  })
  const headers = headerRecord(parsed.headerLines)
  return storedRecord(
    {
      messageId: headers['message-id'] ?? parsed.messageId ?? null,
      from: parsed.from?.text ?? '',
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : null,
      headers,
    },
    envelope,
    receivedAt,
    arrival,
  )
}

/**
 * The record of a message kept without its body (`MAILSINK_STORE=headers`): envelope and headers as
 * `toStoredMessage` gives them, read from the header block alone with no MIME parse. From and Subject
 * are the headers as written (an encoded word stays encoded); `text` is empty and `html` null.
 */
export function toStoredHeaders(
  raw: Buffer,
  envelope: Envelope,
  receivedAt: Date = new Date(),
  arrival: Arrival = UNKNOWN_ARRIVAL,
): StoredMessage {
  const headers = headerRecord(headerLinesOf(raw))
  return storedRecord(
    {
      messageId: headers['message-id'] ?? null,
      from: headers.from ?? '',
      subject: headers.subject ?? '',
      text: '',
      html: null,
      headers,
    },
    envelope,
    receivedAt,
    arrival,
  )
}

/**
 * What a stored record takes from where the message came in, the same however its content was read:
 * recipients from the envelope, not the To header, because that is where the mail was actually
 * delivered (Bcc recipients appear nowhere else); `auth` starts as unsigned.
 */
function storedRecord(
  content: Pick<StoredMessage, 'messageId' | 'from' | 'subject' | 'text' | 'html' | 'headers'>,
  envelope: Envelope,
  receivedAt: Date,
  arrival: Arrival,
): StoredMessage {
  // Field by field, in the order the API has always written them.
  return {
    id: randomUUID(),
    messageId: content.messageId,
    from: content.from,
    to: envelope.to.join(', '),
    recipients: envelope.to.map((address) => address.toLowerCase()),
    subject: content.subject,
    text: content.text,
    html: content.html,
    headers: content.headers,
    receivedAt: receivedAt.toISOString(),
    envelope: { from: envelope.from, to: [...envelope.to] },
    auth: UNSIGNED,
    receiver: arrival.receiver && { ...arrival.receiver },
    sourceAddress: arrival.sourceAddress,
    tls: arrival.tls,
  }
}

/**
 * The header block's fields, each with its folded continuation lines, as mailparser's `headerLines`
 * (key lowercased, the whole field as written): up to the first empty line, or the whole message when
 * it has no body. A line that is neither a field nor a continuation ends the block, as in RFC 5322.
 */
export function headerLinesOf(raw: Buffer): HeaderLines {
  // Only the header block is decoded: a large body costs a byte search, not a string.
  const blank = raw.indexOf('\r\n\r\n')
  const bareBlank = blank < 0 ? raw.indexOf('\n\n') : -1
  const size = blank >= 0 ? blank : bareBlank >= 0 ? bareBlank : raw.length
  const block = raw.subarray(0, size).toString('utf8')
  const lines: { key: string; line: string }[] = []
  for (const physical of block.split(/\r?\n/)) {
    const last = lines.at(-1)
    if (/^[ \t]/.test(physical) && last) {
      last.line += `\r\n${physical}`
      continue
    }
    const colon = physical.indexOf(':')
    if (colon <= 0) break
    lines.push({ key: physical.slice(0, colon).trim().toLowerCase(), line: physical })
  }
  return lines
}

/**
 * Header name → value as written after the colon. Folded lines are unfolded (RFC 5322 §2.2.3) so a
 * long List-Unsubscribe or DKIM-Signature compares as one string, but nothing is decoded: tests
 * assert on what was put on the wire. Repeated headers keep their order, joined with "\n".
 */
export function headerRecord(lines: HeaderLines): Record<string, string> {
  // No prototype: a header named "constructor" or "__proto__" must be just another key.
  const record: Record<string, string> = Object.create(null)
  for (const { key, line } of lines) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const value = line
      .slice(colon + 1)
      .replace(/\r?\n(?=[ \t])/g, '')
      .trim()
    const name = key.toLowerCase()
    record[name] = name in record ? `${record[name]}\n${value}` : value
  }
  return record
}
