/**
 * Values that end up in a mail header (the recipient, the subject, anything interpolated into the
 * subject) must be one line: a CR or LF would let a caller append headers of their own (Bcc:, a
 * second body). Other C0 controls and DEL are refused too; they have no business in a header and
 * some relays treat NUL as end of data. Tab is allowed (it is legal folding whitespace).
 */
export function isHeaderSafe(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return false
  }
  return true
}

export const HEADER_UNSAFE_MESSAGE = 'must be a single line: no CR, LF or other control characters'
