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
  const choice = chooseEncoding(text)
  if (choice === '7bit') return { transferEncoding: '7bit', bytes: Buffer.from(withCrlf(text), 'latin1') }
  const utf8 = Buffer.from(text, 'utf8')
  if (choice === 'quoted-printable') return { transferEncoding: choice, bytes: encodeQuotedPrintable(utf8) }
  return { transferEncoding: choice, bytes: encodeBase64Lines(utf8) }
}

function chooseEncoding(text: string): EncodedBody['transferEncoding'] {
  let plain = true
  let lineLength = 0
  let latin = 0
  let nonLatin = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === LF || code === CR) {
      lineLength = 0
      continue
    }
    lineLength++
    if (lineLength > QP_LINE) plain = false
    if (code >= 0x80 || (code < SPACE && code !== TAB)) {
      nonLatin++
      plain = false
    } else if (code === 0x7f) {
      plain = false
    } else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
      latin++
    }
  }
  if (plain) return '7bit'
  return nonLatin < latin ? 'quoted-printable' : 'base64'
}

/** LF, CR and CRLF line breaks as CRLF (the text is ASCII here: latin1 keeps its bytes). */
function withCrlf(text: string): string {
  if (text.indexOf('\r') === -1) return text.indexOf('\n') === -1 ? text : text.replaceAll('\n', '\r\n')
  return text.replace(/\r\n|\r|\n/g, '\r\n')
}

/**
 * RFC 2045 quoted-printable of UTF-8 bytes: `=` and every byte outside printable ASCII as `=XX`, a
 * space or tab before a line break (or at the end) encoded so no transport can strip it, soft breaks
 * (`=` CRLF) keeping each line at most 76 characters, never inside a `=XX` and never inside one
 * UTF-8 character's bytes (a reader that decodes per line still sees whole characters).
 */
export function encodeQuotedPrintable(input: Buffer): Buffer {
  // Worst case: every byte as `=XX`, and a soft break every 72 characters.
  const out = Buffer.allocUnsafe(input.length * 3 + Math.ceil((input.length * 3) / 72) * 3 + 3)
  let at = 0
  let lineLength = 0
  let i = 0
  while (i < input.length) {
    const byte = input[i] as number
    if (byte === CR || byte === LF) {
      // CRLF, a lone LF or a lone CR: one hard line break.
      i += byte === CR && input[i + 1] === LF ? 2 : 1
      out[at++] = CR
      out[at++] = LF
      lineLength = 0
      continue
    }
    // One character's bytes go on one line: a UTF-8 lead byte brings its continuation bytes.
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    const end = Math.min(i + length, input.length)
    let width = 0
    for (let j = i; j < end; j++) width += literal(input, j) ? 1 : 3
    // Room for the soft break's `=` at the end of the line.
    if (lineLength + width > QP_LINE - 1) {
      out[at++] = EQUALS
      out[at++] = CR
      out[at++] = LF
      lineLength = 0
    }
    for (let j = i; j < end; j++) {
      const value = input[j] as number
      if (literal(input, j)) {
        out[at++] = value
      } else {
        out[at++] = EQUALS
        out[at++] = HEX[value >> 4] as number
        out[at++] = HEX[value & 0x0f] as number
      }
    }
    lineLength += width
    i = end
  }
  return out.subarray(0, at)
}

/** Printable ASCII but `=`, and space or tab unless a line break or the end follows. */
function literal(input: Buffer, index: number): boolean {
  const byte = input[index] as number
  if (byte === SPACE || byte === TAB) {
    const next = input[index + 1]
    return next !== undefined && next !== CR && next !== LF
  }
  return byte > SPACE && byte < 0x7f && byte !== EQUALS
}

function encodeBase64Lines(input: Buffer): Buffer {
  const base64 = input.toString('base64')
  if (base64.length <= BASE64_LINE) return Buffer.from(base64, 'latin1')
  const lines: string[] = []
  for (let at = 0; at < base64.length; at += BASE64_LINE) lines.push(base64.slice(at, at + BASE64_LINE))
  return Buffer.from(lines.join('\r\n'), 'latin1')
}
