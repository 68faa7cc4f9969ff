const CR = 0x0d
const LF = 0x0a
const CRLF = Buffer.from('\r\n')

/**
 * The message as the receiving server will have it: every line ended by CRLF (nodemailer's DATA
 * stream turns a bare LF or a bare CR into CRLF), the last line too (SMTP's end of data starts with
 * the last line's CRLF), and the empty line after the header block even when no body follows (some
 * verifiers find no header without it). The signature must cover exactly those bytes. The input
 * itself when it is already so, which is what MailComposer produces.
 */
export function asReceived(message: Buffer): Buffer {
  let wire = hasBareLineEnd(message) ? withCrlfLineEnds(message) : message
  if (wire.length > 0 && !endsWithCrlf(wire)) wire = Buffer.concat([wire, CRLF])
  const opensWithEmptyLine = wire[0] === CR && wire[1] === LF
  if (!opensWithEmptyLine && wire.indexOf('\r\n\r\n') === -1) wire = Buffer.concat([wire, CRLF])
  return wire
}

function withCrlfLineEnds(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(message.length * 2)
  let at = 0
  const length = message.length
  for (let i = 0; i < length; i++) {
    const c = message[i] as number
    if (c === CR || c === LF) {
      if (c === CR && message[i + 1] === LF) i++
      out[at++] = CR
      out[at++] = LF
    } else {
      out[at++] = c
    }
  }
  return out.subarray(0, at)
}

function endsWithCrlf(wire: Buffer): boolean {
  return wire.length >= 2 && wire[wire.length - 2] === CR && wire[wire.length - 1] === LF
}

/** One pass in JS: faster than a native `indexOf` per line on messages of a few kilobytes. */
export function hasBareLineEnd(message: Buffer): boolean {
  const length = message.length
  for (let i = 0; i < length; i++) {
    const c = message[i]
    if (c === CR) {
      if (message[i + 1] !== LF) return true
      i++
    } else if (c === LF) {
      return true
    }
  }
  return false
}
