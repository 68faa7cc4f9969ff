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
  const length = relaxedBody(body)
  return createHash('sha256').update(scratch.subarray(0, length)).digest('base64')
}

/**
 * Writes the relaxed body into `scratch` and answers its length: whitespace at a line's end dropped,
 * each run of SP/HTAB inside a line one SP, every line ended by CRLF, empty lines at the end dropped
 * (so an empty body, or one of blank lines only, canonicalises to nothing).
 */
function relaxedBody(body: Buffer): number {
  // At most two bytes out per byte in (a bare LF becomes CRLF), plus the CRLF a last line lacks.
  const needed = body.length * 2 + 2
  if (scratch.length < needed) scratch = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2))
  const out = scratch
  let at = 0
  // Empty lines are written only once a line with content follows them.
  let emptyLines = 0
  let lineHasContent = false
  let whitespace = false
  const length = body.length
  for (let i = 0; i < length; i++) {
    const c = body[i] as number
    if (c === LF || c === CR) {
      if (c === CR && body[i + 1] === LF) i++
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
  return at
}
