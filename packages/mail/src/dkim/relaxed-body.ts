import { createHash } from 'node:crypto'

const CR = 0x0d
const LF = 0x0a
const SP = 0x20
const TAB = 0x09

/** Reused by every call (signing is synchronous): no allocation per message once it fits. */
let scratch = Buffer.allocUnsafe(16 * 1024)

/**
 * The `bh=` of a DKIM signature: base64 sha256 of the body in relaxed canonicalisation (RFC 6376
 * §3.4.4). A caller sending one body to many recipients hashes it once and passes it to `dkimSign`.
 *
 * Line ends are read as the SMTP transport writes them: nodemailer's DATA stream turns a bare LF and
 * a bare CR into CRLF, so both end a line here too, and the hash is the one a receiver computes over
 * the bytes it got whatever the input's line ends were.
 */
export function dkimBodyHash(body: Buffer): string {
  return relaxedBodyHash(body).bodyHash
}

/**
 * `dkimBodyHash`, and whether the body has a bare LF or CR (the signer then has the whole message
 * rewritten with CRLF line ends, `asReceived`): one pass over the body answers both.
 */
export function relaxedBodyHash(body: Buffer): { bodyHash: string; bareLineEnd: boolean } {
  const hash = createHash('sha256')
  const prefix = relaxedPrefix(body)
  if (prefix.at === body.length) {
    // The common case (a composed body with nothing to collapse): hashed where it lies, no copy.
    hash.update(body.subarray(0, prefix.contentEnd))
    return { bodyHash: hash.digest('base64'), bareLineEnd: false }
  }
  const { length, bareLineEnd } = relaxedBody(body, prefix)
  hash.update(scratch.subarray(0, length))
  return { bodyHash: hash.digest('base64'), bareLineEnd }
}

interface Prefix {
  /** Where the first line that relaxed canonicalisation changes starts (the body's length: none). */
  at: number
  /** The end (after its CRLF) of the last line before `at` with content: empty lines after it wait. */
  contentEnd: number
}

/**
 * How far the body is already its own relaxed form, read without writing anything: lines ended by
 * CRLF, no HTAB, no two SP in a row, no SP before a line end. Up to `at` the canonical body is these
 * very bytes, less the empty lines after `contentEnd` (written only if content follows them).
 */
function relaxedPrefix(body: Buffer): Prefix {
  const length = body.length
  let lineStart = 0
  let contentEnd = 0
  let previous = LF
  for (let i = 0; i < length; i++) {
    const c = body[i] as number
    if (c === CR) {
      if (body[i + 1] !== LF || previous === SP) return { at: lineStart, contentEnd }
      i++
      // A line of content (an empty line is CR LF straight after the previous line end).
      if (previous !== LF) contentEnd = i + 1
      lineStart = i + 1
      previous = LF
    } else if (c === LF || c === TAB || (c === SP && previous === SP)) {
      return { at: lineStart, contentEnd }
    } else {
      previous = c
    }
  }
  // A last line without its CRLF (or ending in SP) gets one written: the slow path does that.
  return previous === LF ? { at: length, contentEnd } : { at: lineStart, contentEnd }
}

/**
 * Writes the relaxed body into `scratch` and answers its length: whitespace at a line's end dropped,
 * each run of SP/HTAB inside a line one SP, every line ended by CRLF, empty lines at the end dropped
 * (so an empty body, or one of blank lines only, canonicalises to nothing). What `relaxedPrefix`
 * found unchanged is copied as it is; the loop starts at the line where the first change is.
 */
function relaxedBody(body: Buffer, prefix: Prefix): { length: number; bareLineEnd: boolean } {
  // At most two bytes out per byte in (a bare LF becomes CRLF), plus the CRLF a last line lacks.
  const needed = body.length * 2 + 2
  if (scratch.length < needed) scratch = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2))
  const out = scratch
  let at = body.copy(out, 0, 0, prefix.contentEnd)
  // Empty lines are written only once a line with content follows them (the prefix's are CRLF each).
  let emptyLines = (prefix.at - prefix.contentEnd) / 2
  let lineHasContent = false
  let whitespace = false
  let bareLineEnd = false
  const length = body.length
  for (let i = prefix.at; i < length; i++) {
    const c = body[i] as number
    if (c === LF || c === CR) {
      if (c === CR && body[i + 1] === LF) i++
      else bareLineEnd = true
      if (lineHasContent) {
        out[at++] = CR
        out[at++] = LF
        lineHasContent = false
      } else {
        emptyLines++
      }
      whitespace = false
    } else if (c === SP || c === TAB) {
      whitespace = true
    } else {
      if (!lineHasContent) {
        for (; emptyLines > 0; emptyLines--) {
          out[at++] = CR
          out[at++] = LF
        }
        lineHasContent = true
      }
      if (whitespace) {
        out[at++] = SP
        whitespace = false
      }
      out[at++] = c
    }
  }
  if (lineHasContent) {
    out[at++] = CR
    out[at++] = LF
  }
  return { length: at, bareLineEnd }
}
