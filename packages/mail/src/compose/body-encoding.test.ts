import { describe, expect, it } from 'vitest'
import { encodeQuotedPrintable, encodeTextBody } from './body-encoding'

/** RFC 2045 decoding, written plainly: soft breaks removed, `=XX` to its byte, CRLF kept. */
function decodeQuotedPrintable(encoded: Buffer): Buffer {
  const text = encoded.toString('latin1').replace(/=\r\n/g, '')
  const bytes: number[] = []
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=') {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      bytes.push(text.charCodeAt(i))
    }
  }
  return Buffer.from(bytes)
}

const samples = [
  '',
  'plain',
  'a = b',
  'trailing space \nand tab\t\nand at the end ',
  `${'x'.repeat(75)}=${'y'.repeat(200)}`,
  `${'é'.repeat(100)}\n${'🎄'.repeat(30)}`,
  'Grüße aus Köln — 20 € off\r\nnext\rline',
  `${'a'.repeat(73)}ü${'b'.repeat(10)}`,
  '\u0000\u0001 control\u007f characters',
]

describe('encodeQuotedPrintable', () => {
  for (const sample of samples) {
    it(`round-trips and keeps lines at 76: ${JSON.stringify(sample.slice(0, 30))}`, () => {
      const encoded = encodeQuotedPrintable(Buffer.from(sample))
      const crlf = sample.replace(/\r\n|\r|\n/g, '\r\n')
      expect(decodeQuotedPrintable(encoded).toString()).toBe(crlf)
      const lines = encoded.toString('latin1').split('\r\n')
      for (const line of lines) {
        expect(line.length).toBeLessThanOrEqual(76)
        // Nothing a transport may strip or change: no whitespace before a line break, 7-bit only.
        expect(line).not.toMatch(/[ \t]$/)
        expect(line).toMatch(/^[\x21-\x7e \t]*$/)
        // A soft break never falls inside `=XX`.
        expect(line.replace(/=[0-9A-F]{2}/g, '').replace(/=$/, '')).not.toContain('=')
      }
    })
  }

  it('keeps the bytes of one character on one line', () => {
    const encoded = encodeQuotedPrintable(Buffer.from(`${'a'.repeat(74)}€`)).toString('latin1')
    expect(encoded).toBe(`${'a'.repeat(74)}=\r\n=E2=82=AC`)
  })
})

describe('encodeTextBody', () => {
  it('sends short printable ASCII lines as 7bit, with CRLF', () => {
    const body = encodeTextBody('Hello\nthere\n')
    expect(body.transferEncoding).toBe('7bit')
    expect(body.bytes.toString()).toBe('Hello\r\nthere\r\n')
  })

  it('chooses quoted-printable for long lines or some non-ASCII, base64 for mostly non-Latin text', () => {
    expect(encodeTextBody('x'.repeat(77)).transferEncoding).toBe('quoted-printable')
    expect(encodeTextBody('Grüße aus Köln').transferEncoding).toBe('quoted-printable')
    const cyrillic = encodeTextBody('Привет, мир! '.repeat(10))
    expect(cyrillic.transferEncoding).toBe('base64')
    const lines = cyrillic.bytes.toString().split('\r\n')
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(76)
    expect(Buffer.from(lines.join(''), 'base64').toString()).toBe('Привет, мир! '.repeat(10))
  })
})
