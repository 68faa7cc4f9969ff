import { randomBytes } from 'node:crypto'

/**
 * The raw RFC 5322 / MIME pieces the DSN and ARF builders share. nodemailer's MailComposer cannot
 * make a multipart/report whose parts are message/delivery-status or message/feedback-report with
 * bodies as written, so the reports are written out by hand: CRLF line ends, one boundary that
 * appears nowhere in the parts, and header values that never carry a CR or LF.
 */

const CRLF = '\r\n'

/** A report's part: its headers (without the blank line) and its body as bytes. */
export interface MimePart {
  headers: readonly string[]
  body: Buffer
}

/** `Tue, 01 Dec 2026 10:00:00 +0000`: the RFC 5322 date-time every Date and *-Date field uses. */
export function rfc5322Date(date: Date): string {
  return date.toUTCString().replace(/GMT$/, '+0000')
}

/** A Message-ID for a report the sink writes, in the sink's own name. */
export function newMessageId(mtaName: string): string {
  return `<${randomBytes(12).toString('hex')}@${mtaName}>`
}

/**
 * The header section of a message as received, up to and including the CRLF of its last header
 * line (without the blank line), with bare LFs turned into CRLF. A message without a body is all
 * header section.
 */
export function headerSection(raw: Buffer): Buffer {
  const crlf = raw.indexOf('\r\n\r\n')
  const lf = raw.indexOf('\n\n')
  const ends = [crlf < 0 ? -1 : crlf + 2, lf < 0 ? -1 : lf + 1].filter((end) => end >= 0)
  const end = ends.length > 0 ? Math.min(...ends) : raw.length
  return withCrlf(raw.subarray(0, end))
}

/** The bytes with every line ending CRLF (latin1 keeps 8-bit bytes as they are). */
export function withCrlf(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1').replace(/\r?\n/g, CRLF)
  return Buffer.from(text.endsWith(CRLF) || text === '' ? text : text + CRLF, 'latin1')
}

/**
 * The first value of a header in a header section, unfolded; undefined when absent. Good enough to
 * read From for Reported-Domain; the reports never decode encoded words.
 */
export function headerValue(section: Buffer, name: string): string | undefined {
  const unfolded = section.toString('latin1').replace(/\r\n(?=[ \t])/g, '')
  const wanted = name.toLowerCase()
  for (const line of unfolded.split(CRLF)) {
    const colon = line.indexOf(':')
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === wanted) return line.slice(colon + 1).trim()
  }
  return undefined
}

/** The domain of the first address in a header value such as `"Shop" <news@shop.example>`. */
export function addressDomain(value: string | undefined): string | undefined {
  if (!value) return undefined
  const bracketed = /<([^<>\s]+@[^<>\s]+)>/.exec(value)?.[1]
  const address = bracketed ?? /([^\s<>",;:]+@[^\s<>",;:]+)/.exec(value)?.[1]
  const domain = address?.slice(address.lastIndexOf('@') + 1).toLowerCase()
  return domain && /^[a-z0-9.-]+$/.test(domain) ? domain : undefined
}

/** The domain of an address (`user@example.com` → `example.com`); empty for an address without one. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@')
  return at < 0 ? '' : address.slice(at + 1).toLowerCase()
}

/**
 * A header field value made safe to write on one line: CR, LF and other control characters become
 * spaces. Addresses come from an SMTP envelope and are already free of them; this is the last guard.
 */
export function oneLine(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
}

/** `Name: value` lines for a message/delivery-status or message/feedback-report group. */
export function fieldLines(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  return fields
    .filter((field): field is readonly [string, string] => field[1] !== undefined)
    .map(([name, value]) => `${name}: ${oneLine(value)}${CRLF}`)
    .join('')
}

/**
 * A whole multipart/report message: the top headers (Content-Type and MIME-Version added here),
 * a preamble for readers without MIME, then each part. The boundary is drawn again in the (never
 * seen) case it appears in a part, since a part may carry the original message verbatim.
 */
export function multipartReport(
  reportType: 'delivery-status' | 'feedback-report',
  headers: readonly string[],
  parts: readonly MimePart[],
): Buffer {
  let boundary = newBoundary()
  while (parts.some((part) => part.body.includes(boundary))) boundary = newBoundary()
  const eightBit = parts.some((part) => !isAscii(part.body))
  const head = [
    ...headers.map(oneLine),
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=${reportType}; boundary="${boundary}"`,
    // The original's headers may hold 8-bit bytes (SMTPUTF8 mail); say so rather than pretend 7bit.
    `Content-Transfer-Encoding: ${eightBit ? '8bit' : '7bit'}`,
  ]
  const chunks: Buffer[] = [
    Buffer.from(`${head.join(CRLF)}${CRLF}${CRLF}This is a MIME-encapsulated message.${CRLF}`, 'latin1'),
  ]
  for (const part of parts) {
    chunks.push(Buffer.from(`${CRLF}--${boundary}${CRLF}${part.headers.join(CRLF)}${CRLF}${CRLF}`, 'latin1'))
    chunks.push(part.body)
  }
  chunks.push(Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'latin1'))
  return Buffer.concat(chunks)
}

/** A text/plain part; its text is UTF-8 (addresses may be internationalized). */
export function textPart(text: string): MimePart {
  const body = Buffer.from(withCrlf(Buffer.from(text, 'utf8')))
  return {
    headers: [
      `Content-Type: text/plain; charset=${isAscii(body) ? 'us-ascii' : 'utf-8'}`,
      `Content-Transfer-Encoding: ${isAscii(body) ? '7bit' : '8bit'}`,
    ],
    body,
  }
}

function newBoundary(): string {
  return `=_report_${randomBytes(12).toString('hex')}`
}

function isAscii(bytes: Buffer): boolean {
  return bytes.every((byte) => byte < 0x80)
}
