import { describe, expect, it } from 'vitest'
import { MAX_DIAGNOSTIC_CHARS, sanitiseOptional, sanitiseText } from './sanitise-text'

describe('sanitiseText', () => {
  it('replaces CR, LF, tabs and other controls with single spaces', () => {
    expect(sanitiseText('550 5.1.1 no\r\nSubject: injected\tline\u0000end\u007f')).toBe(
      '550 5.1.1 no Subject: injected line end',
    )
  })

  it('removes bidirectional overrides and line separators that change how a text reads', () => {
    expect(sanitiseText('user\u202eexe.txt\u2028next\u2066x\u2069')).toBe('user exe.txt next x')
  })

  it('keeps replacement characters and other scripts, and repairs lone surrogates', () => {
    expect(sanitiseText('M\ufffdller: Postfach voll, 满了')).toBe('M\ufffdller: Postfach voll, 满了')
    expect(sanitiseText('a\ud800b\udc00c')).toBe('a\ufffdb\ufffdc')
  })

  it('cuts at 1,000 code points with an ellipsis, never inside a surrogate pair', () => {
    const long = '😀'.repeat(1_500)
    const cut = sanitiseText(long)
    expect(Array.from(cut)).toHaveLength(MAX_DIAGNOSTIC_CHARS)
    expect(cut.endsWith('😀…')).toBe(true)
    expect(sanitiseText('x'.repeat(1_000))).toBe('x'.repeat(1_000))
  })

  it('answers undefined for nothing readable', () => {
    expect(sanitiseOptional('\r\n\t ')).toBeUndefined()
    expect(sanitiseOptional(undefined)).toBeUndefined()
    expect(sanitiseOptional(' ok ')).toBe('ok')
  })
})
