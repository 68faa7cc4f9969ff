import { describe, expect, it } from 'vitest'
import { isHeaderSafe } from './header-safe'
import { isRecipientLimited, laneForTemplate } from './template-lanes'

describe('header-bound values', () => {
  it.each(['Hello', 'Tab\tseparated', 'Ünïcödé ✓', ''])('accepts %j', (value) => {
    expect(isHeaderSafe(value)).toBe(true)
  })

  it.each(['a\rb', 'a\nb', 'a\r\nBcc: x@y.test', 'nul\u0000', 'bell\u0007', 'del\u007f'])(
    'refuses %j',
    (value) => {
      expect(isHeaderSafe(value)).toBe(false)
    },
  )
})

describe('lanes of templates', () => {
  it('sends otp, password-reset and verify-email on the critical lane, limited per recipient; the rest on default', () => {
    expect(laneForTemplate('otp')).toBe('critical')
    expect(laneForTemplate('password-reset')).toBe('critical')
    expect(laneForTemplate('verify-email')).toBe('critical')
    expect(isRecipientLimited('verify-email')).toBe(true)
    expect(laneForTemplate('welcome')).toBe('default')
    expect(laneForTemplate(null)).toBe('default')
    expect(isRecipientLimited('otp')).toBe(true)
    expect(isRecipientLimited('welcome')).toBe(false)
  })
})
