import { Headers } from '@zone-eu/mailsplit'

/**
 * Header fields of a submitted message that do not leave as submitted: ours replace them
 * (Message-ID: the same one on every attempt, so a receiver can recognise a resend), the receiving
 * side writes them (Return-Path), they must not be seen (Bcc), they cover headers we changed (an
 * earlier DKIM-Signature would fail), or they were instructions to Fairlane (the submission's
 * X-Fairlane-* and Idempotency-Key).
 */
const DROPPED_FIELDS = [
  'message-id',
  'bcc',
  'return-path',
  'dkim-signature',
  'x-fairlane-lane',
  'x-fairlane-tags',
  'idempotency-key',
]

/**
 * The submitted message with its header block rewritten: the fields above removed, `Message-ID` set,
 * `headers` added (each replacing any submitted field of its name) and a `Date` added if it had none.
 * The header block ends at the first empty line (RFC 5322 §2.1); its fields are parsed, removed and
 * folded by mailsplit's `Headers`. The body's bytes (MIME parts, attachments) are copied untouched.
 */
export function rewriteSubmittedMessage(
  raw: Uint8Array,
  ours: { messageId: string; headers: Record<string, string>; now?: Date },
): Buffer {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  const { header, body } = splitAtHeaderEnd(bytes)
  const fields = new Headers(header)
  for (const name of [...DROPPED_FIELDS, ...Object.keys(ours.headers)]) fields.remove(name)
  if (!fields.hasHeader('date'))
    fields.add('Date', (ours.now ?? new Date()).toUTCString().replace(/GMT$/, '+0000'))
  // Added at the top, as a relay prepends its fields; the order among ours is the order given.
  const added = Object.entries(ours.headers).reverse()
  for (const [name, value] of added) fields.add(name, value)
  fields.add('Message-ID', ours.messageId)
  return Buffer.concat([fields.build('\r\n'), body])
}

/** The header block (with its line end) and the body after the empty line; no empty line: all header. */
function splitAtHeaderEnd(bytes: Buffer): { header: Buffer; body: Buffer } {
  const crlf = bytes.indexOf('\r\n\r\n')
  const lf = bytes.indexOf('\n\n')
  if (crlf === -1 && lf === -1) return { header: bytes, body: Buffer.alloc(0) }
  // The earlier of the two: a bare-LF header block followed by a CRLF body still ends at its own blank line.
  if (crlf !== -1 && (lf === -1 || crlf < lf)) {
    return { header: bytes.subarray(0, crlf + 2), body: bytes.subarray(crlf + 4) }
  }
  return { header: bytes.subarray(0, lf + 1), body: bytes.subarray(lf + 2) }
}
