import { describe, expect, it } from 'vitest'
import { signUnsubscribeToken, unsubscribeKey, verifyUnsubscribeToken } from './token'

const SESSION_SECRET = 'a-session-secret-of-at-least-32-characters'
const key = unsubscribeKey({
  secrets: [{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }],
  sessionSecret: SESSION_SECRET,
})
const claims = {
  tenantId: '0b6f6f5e-3c1a-4f43-9d53-7c1e2b1f0a11',
  contactId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  campaignId: 'ffffffff-0000-4000-8000-123456789abc',
}

describe('unsubscribe tokens', () => {
  it('round-trips the claims in a short URL-safe token', () => {
    const token = signUnsubscribeToken(claims, key)
    expect(token).toMatch(/^[A-Za-z0-9_-]{88}$/)
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
    const otherKey = unsubscribeKey({
      secrets: [{ kid: 1, secret: 'another-unsubscribe-secret-of-32-chars!!' }],
      sessionSecret: SESSION_SECRET,
    })
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

  it('does not depend on SESSION_SECRET: rotating it keeps every link signed since working', () => {
    const secrets = [{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }]
    const token = signUnsubscribeToken(claims, unsubscribeKey({ secrets, sessionSecret: SESSION_SECRET }))
    const rotated = unsubscribeKey({ secrets, sessionSecret: 'a-brand-new-session-secret-of-32-characters' })
    expect(verifyUnsubscribeToken(token, rotated)).toEqual(claims)
  })

  it('carries its key id: after a rotation (new key first) links signed with the old key still verify', () => {
    const old = { kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }
    const fresh = { kid: 2, secret: 'the-next-unsubscribe-secret-of-32-chars' }
    const before = signUnsubscribeToken(
      claims,
      unsubscribeKey({ secrets: [old], sessionSecret: SESSION_SECRET }),
    )
    const rotated = unsubscribeKey({ secrets: [fresh, old], sessionSecret: SESSION_SECRET })
    const after = signUnsubscribeToken(claims, rotated)
    expect(after).not.toBe(before)
    expect(verifyUnsubscribeToken(before, rotated)).toEqual(claims)
    expect(verifyUnsubscribeToken(after, rotated)).toEqual(claims)
    // Once the old key is dropped, its links stop verifying; the key id is not a way around the MAC.
    const dropped = unsubscribeKey({ secrets: [fresh], sessionSecret: SESSION_SECRET })
    expect(verifyUnsubscribeToken(before, dropped)).toBeNull()
    const relabelled = Buffer.from(before, 'base64url')
    relabelled[1] = 2
    expect(verifyUnsubscribeToken(relabelled.toString('base64url'), rotated)).toBeNull()
  })

  /** Minted by the code before key ids (version 1, key from SESSION_SECRET): links already in inboxes. */
  const LEGACY = {
    token: 'AQ-PrVvZy0afoWVwhncolQ58nmZ5dCVA3pRL4H_B-QrnOyQRAeK7QlWMr0E2xWapYl9tLPE77Pj6dPIxOseM8nk',
    claims: {
      tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e',
      contactId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      campaignId: '3b241101-e2bb-4255-8caf-4136c566a962',
    },
  }

  it('keeps verifying links minted before key ids, with the SESSION_SECRET they were signed with', () => {
    expect(verifyUnsubscribeToken(LEGACY.token, key)).toEqual(LEGACY.claims)
    const other = unsubscribeKey({
      secrets: [{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }],
      sessionSecret: 'a-brand-new-session-secret-of-32-characters',
    })
    expect(verifyUnsubscribeToken(LEGACY.token, other)).toBeNull()
    // After SESSION_SECRET rotates, listing the old one as key id 0 keeps those links working.
    const withOld = unsubscribeKey({
      secrets: [
        { kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' },
        { kid: 0, secret: SESSION_SECRET },
      ],
      sessionSecret: 'a-brand-new-session-secret-of-32-characters',
    })
    expect(verifyUnsubscribeToken(LEGACY.token, withOld)).toEqual(LEGACY.claims)
  })

  it('refuses a signing key without an id from 1 to 255', () => {
    expect(() =>
      unsubscribeKey({ secrets: [{ kid: 0, secret: SESSION_SECRET }], sessionSecret: SESSION_SECRET }),
    ).toThrow(RangeError)
    expect(() => unsubscribeKey({ secrets: [], sessionSecret: SESSION_SECRET })).toThrow(RangeError)
  })
})
