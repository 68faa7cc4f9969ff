/**
 * A text part's body as it goes on the wire, chosen the way nodemailer chooses (so a message composed
 * here reads the same to a filter as one nodemailer composed): 7bit when every character is printable
 * ASCII and no line is longer than 76; otherwise quoted-printable when Latin letters outnumber
 * non-ASCII and control characters, else base64. Line breaks become CRLF in every case.
 *
 * Written for the send path: one pass to choose, one pass over the UTF-8 bytes to encode into a
 * buffer sized for the worst case, no regular expressions and no streams (nodemailer's encoders are
 * stream transforms that cost more than the rest of a campaign mail's composition).
 */
export interface EncodedBody {
  transferEncoding: '7bit' | 'quoted-printable' | 'base64'
  /** The encoded body, CRLF line breaks, without a final line break. */
  bytes: Buffer
}

/** RFC 2045's limit for a quoted-printable line, the soft break's `=` included. */
const QP_LINE = 76
/** Base64 lines of 76 characters, as nodemailer writes them. */
const BASE64_LINE = 76

const CR = 0x0d
const LF = 0x0a
const SPACE = 0x20
const TAB = 0x09
const EQUALS = 0x3d
const HEX = Buffer.from('0123456789ABCDEF')

export function encodeTextBody(text: string): EncodedBody {
  // Bytes, not the string: a rendered template is a rope of many pieces, slow to read by index.
  const utf8 = Buffer.from(text, 'utf8')
  const choice = chooseEncoding(utf8)
  if (choice === '7bit') return { transferEncoding: '7bit', bytes: withCrlf(utf8) }
  if (choice === 'quoted-printable') return { transferEncoding: choice, bytes: encodeQuotedPrintable(utf8) }
  return { transferEncoding: choice, bytes: encodeBase64Lines(utf8) }
}

/**
 * nodemailer's rule over UTF-8 bytes: a lead byte is one non-ASCII character (two UTF-16 units from
 * 0xF0 on, as nodemailer counts them in the string), continuation bytes are not counted again.
 */
function chooseEncoding(bytes: Uint8Array): EncodedBody['transferEncoding'] {
  let plain = true
  let lineLength = 0
  let latin = 0
  let nonLatin = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number
    if (byte === LF || byte === CR) {
      lineLength = 0
      continue
    }
    if (++lineLength > QP_LINE) plain = false
    if ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)) latin++
    else if (byte >= 0x80) {
      plain = false
      if (byte >= 0xf0) nonLatin += 2
      else if (byte >= 0xc0) nonLatin++
    } else if ((byte < SPACE && byte !== TAB) || byte === 0x7f) {
      plain = false
      if (byte !== 0x7f) nonLatin++
    }
  }
  if (plain) return '7bit'
  return nonLatin < latin ? 'quoted-printable' : 'base64'
}

/** LF, CR and CRLF line breaks as CRLF. */
function withCrlf(bytes: Buffer): Buffer {
  let bare = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === LF || (byte === CR && bytes[i + 1] !== LF)) bare++
    else if (byte === CR) i++
  }
  if (bare === 0) return bytes
  const out = Buffer.allocUnsafe(bytes.length + bare)
  let at = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number
    if (byte === LF || byte === CR) {
      if (byte === CR && bytes[i + 1] === LF) i++
      out[at++] = CR
      out[at++] = LF
    } else {
      out[at++] = byte
    }
  }
  return out
}

/**
 * RFC 2045 quoted-printable of UTF-8 bytes: `=` and every byte outside printable ASCII as `=XX`, a
 * space or tab before a line break (or at the end) encoded so no transport can strip it, soft breaks
 * (`=` CRLF) keeping each line at most 76 characters, never inside a `=XX` and never inside one
 * UTF-8 character's bytes (a reader that decodes per line still sees whole characters).
 */
export function encodeQuotedPrintable(input: Uint8Array): Buffer {
  const length = input.length
  // Worst case: every byte as `=XX`, and a soft break every 72 characters.
  const out = Buffer.allocUnsafe(length * 3 + Math.ceil((length * 3) / 72) * 3 + 3)
  let at = 0
  let lineStart = 0
  let i = 0
  while (i < length) {
    const byte = input[i] as number
    if (byte === CR || byte === LF) {
      // CRLF, a lone LF or a lone CR: one hard line break.
      i += byte === CR && input[i + 1] === LF ? 2 : 1
      out[at++] = CR
      out[at++] = LF
      lineStart = at
      continue
    }
    // A UTF-8 lead byte brings its continuation bytes: one character's bytes go on one line.
    let end = i + 1
    if (byte >= 0xc0) {
      const last = Math.min(i + (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2), length)
      while (end < last && ((input[end] as number) & 0xc0) === 0x80) end++
    }
    let width = 3 * (end - i)
    if (end === i + 1) {
      if (byte > SPACE && byte < 0x7f && byte !== EQUALS) width = 1
      else if (byte === SPACE || byte === TAB) {
        // Whitespace stays literal unless a line break or the end follows (a transport may strip it).
        const next = input[i + 1]
        if (next !== undefined && next !== CR && next !== LF) width = 1
      }
    }
    // Room for the soft break's `=` at the end of the line.
    if (at - lineStart + width > QP_LINE - 1) {
      out[at++] = EQUALS
      out[at++] = CR
      out[at++] = LF
      lineStart = at
    }
    if (width === 1) {
      out[at++] = byte
    } else {
      for (let j = i; j < end; j++) {
        const value = input[j] as number
        out[at++] = EQUALS
        out[at++] = HEX[value >> 4] as number
        out[at++] = HEX[value & 0x0f] as number
      }
    }
    i = end
  }
  return out.subarray(0, at)
}

function encodeBase64Lines(input: Buffer): Buffer {
  const base64 = input.toString('base64')
  if (base64.length <= BASE64_LINE) return Buffer.from(base64, 'latin1')
  const lines: string[] = []
  for (let at = 0; at < base64.length; at += BASE64_LINE) lines.push(base64.slice(at, at + BASE64_LINE))
  return Buffer.from(lines.join('\r\n'), 'latin1')
}
