import { foldLines } from 'nodemailer/lib/mime-funcs'
import MimeNode from 'nodemailer/lib/mime-node'

/** A header field as nodemailer takes it: an address field may be a name and address. */
export type HeaderValue = string | { name: string; address: string }

const ADDRESS_FIELDS = new Set(['from', 'sender', 'to', 'cc', 'bcc', 'reply-to'])

/** Printable ASCII only: nothing to encode, nothing that could end the line. */
const PRINTABLE = /^[\x20-\x7e]*$/
/**
 * A bare dot-atom addr-spec with a lowercase ASCII domain, which nodemailer writes as given (no
 * display name, quoting, IDN or case change: it lowercases domains).
 */
const PLAIN_ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9-]+(?:\.[a-z0-9-]+)*$/

/**
 * One header field as its folded line(s), without the final CRLF, written as nodemailer's MimeNode
 * writes it: addresses punycoded, display names quoted or RFC 2047-encoded, unstructured values
 * encoded as words when they hold non-ASCII or control characters, CR/LF in a value turned to a
 * space (no value can add a header), lines folded at 76. The common case (a short ASCII value, a bare
 * address) is written directly: nodemailer's encoder builds a MIME node per call.
 */
export function headerLine(key: string, value: HeaderValue): string {
  const address = ADDRESS_FIELDS.has(key.toLowerCase())
  if (typeof value === 'string' && key.length + value.length + 2 <= 76) {
    if (address ? PLAIN_ADDRESS.test(value) : PRINTABLE.test(value)) return `${key}: ${value}`
  }
  const encoded = MimeNode.encodeHeaderValue(key, value)
  return foldLines(`${key}: ${encoded}`, 76)
}

/** RFC 5322's date as nodemailer writes it: `Sun, 06 Dec 2026 21:31:32 +0000`. */
export function headerDate(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000')
}
