import { describe, expect, it } from 'vitest'
import { isEmailAddress } from './email-address'

describe('isEmailAddress', () => {
  it('accepts internationalised addresses (RFC 6531)', () => {
    for (const address of [
      'chloé@exemple.fr',
      'user@exämple.com',
      '用户@例子.广告',
      'δοκιμή@παράδειγμα.δοκιμή',
    ])
      expect(isEmailAddress(address), address).toBe(true)
  })

  it('still refuses what is not an address', () => {
    for (const address of [
      'a@b',
      'chloé@exemple',
      'a b@c.com',
      'chloé',
      '@exemple.fr',
      'x@@exemple.fr',
      'é@.fr',
    ])
      expect(isEmailAddress(address), address).toBe(false)
  })

  it('keeps the ASCII rules as they were', () => {
    expect(isEmailAddress('user@example.com')).toBe(true)
    expect(isEmailAddress('user@localhost')).toBe(false)
  })
})
