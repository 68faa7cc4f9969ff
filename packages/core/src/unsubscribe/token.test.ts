import { describe, expect, it } from 'vitest'
import { signUnsubscribeToken, unsubscribeKey, verifyUnsubscribeToken } from './token'

const key = unsubscribeKey('a-session-secret-of-at-least-32-characters')
const claims = {
  tenantId: '0b6f6f5e-3c1a-4f43-9d53-7c1e2b1f0a11',
  contactId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  campaignId: 'ffffffff-0000-4000-8000-123456789abc',
}

describe('unsubscribe tokens', () => {
  it('round-trips the claims in a short URL-safe token', () => {
    const token = signUnsubscribeToken(claims, key)
    expect(token).toMatch(/^[A-Za-z0-9_-]{87}$/)
    expect(verifyUnsubscribeToken(token, key)).toEqual(claims)
  })

  it('is deterministic: the same claims give the same token', () => {
    expect(signUnsubscribeToken(claims, key)).toBe(signUnsubscribeToken(claims, key))
  })

  it('refuses a token with any single character changed', () => {
    const token = signUnsubscribeToken(claims, key)
    for (let index = 0; index < token.length; index++) {
      const replacement = token[index] === 'A' ? 'B' : 'A'
      const tampered = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`
      expect(verifyUnsubscribeToken(tampered, key), `position ${index}`).toBeNull()
    }
  })

  it('refuses a token for another contact made by re-using the signature', () => {
    const token = signUnsubscribeToken(claims, key)
    const other = signUnsubscribeToken({ ...claims, contactId: '11111111-1111-4111-8111-111111111111' }, key)
    const forged = other.slice(0, 66) + token.slice(66)
    expect(verifyUnsubscribeToken(forged, key)).toBeNull()
  })

  it('refuses tokens signed with another secret, truncated, padded or not base64url', () => {
    const token = signUnsubscribeToken(claims, key)
    const otherKey = unsubscribeKey('another-session-secret-of-32-characters!!')
    expect(verifyUnsubscribeToken(signUnsubscribeToken(claims, otherKey), key)).toBeNull()
    for (const bad of [
      token.slice(0, -1),
      `${token}A`,
      `${token}=`,
      token.replace(/.$/, '+'),
      '',
      'not a token',
    ]) {
      expect(verifyUnsubscribeToken(bad, key)).toBeNull()
    }
  })

  it('refuses to sign something that is not a uuid', () => {
    expect(() => signUnsubscribeToken({ ...claims, contactId: 'nope' }, key)).toThrow(TypeError)
  })
})
