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
  const envelopeRecipients = envelope.to
  const parsed = await simpleParser(raw, {
    // The sink never shows cid: images inline, and skipping the HTML rendering of text parts and
    // attachment hashing keeps parsing cheap when a benchmark sends tens of thousands of messages.
    keepCidLinks: true,
    skipTextToHtml: true,
    checksumAlgo: false,
  })
  const headers = headerRecord(parsed.headerLines)
  return {
    id: randomUUID(),
    messageId: headers['message-id'] ?? parsed.messageId ?? null,
    from: parsed.from?.text ?? '',
    to: envelopeRecipients.join(', '),
    recipients: envelopeRecipients.map((address) => address.toLowerCase()),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    headers,
    receivedAt: receivedAt.toISOString(),
    envelope: { from: envelope.from, to: [...envelope.to] },
    auth: UNSIGNED,
    receiver: arrival.receiver && { ...arrival.receiver },
    sourceAddress: arrival.sourceAddress,
    tls: arrival.tls,
  }
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
