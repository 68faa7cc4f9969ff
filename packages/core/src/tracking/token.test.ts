import { describe, expect, it } from 'vitest'
import { signUnsubscribeToken, unsubscribeKey } from '../unsubscribe/token'
import { signTrackingToken, trackingKey, verifyTrackingToken } from './token'

const secrets = [{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }]
const key = trackingKey(secrets)
const messageId = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f'

describe('tracking tokens', () => {
  it('round-trips open and click claims in short URL-safe tokens', () => {
    const open = signTrackingToken({ kind: 'open', messageId }, key)
    const click = signTrackingToken({ kind: 'click', messageId, linkId: 123_456_789 }, key)
    expect(open).toMatch(/^[A-Za-z0-9_-]{47}$/)
    expect(click).toMatch(/^[A-Za-z0-9_-]{55}$/)
    expect(verifyTrackingToken(open, key)).toEqual({ kind: 'open', messageId })
    expect(verifyTrackingToken(click, key)).toEqual({ kind: 'click', messageId, linkId: 123_456_789 })
  })

  it('refuses a token with any single character changed', () => {
    const token = signTrackingToken({ kind: 'click', messageId, linkId: 7 }, key)
    for (let index = 0; index < token.length; index++) {
      const replacement = token[index] === 'A' ? 'B' : 'A'
      const tampered = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`
      expect(verifyTrackingToken(tampered, key), `position ${index}`).toBeNull()
    }
  })

  it('refuses another link id or kind made by re-using the signature', () => {
    const token = Buffer.from(signTrackingToken({ kind: 'click', messageId, linkId: 7 }, key), 'base64url')
    const otherLink = Buffer.from(token)
    otherLink[otherLink.length - 17] = 8
    expect(verifyTrackingToken(otherLink.toString('base64url'), key)).toBeNull()
    const asOpen = Buffer.from(signTrackingToken({ kind: 'open', messageId }, key), 'base64url')
    asOpen[2] = 2
    expect(verifyTrackingToken(asOpen.toString('base64url'), key)).toBeNull()
  })

  it('refuses tokens of another secret, unsubscribe tokens, truncated, padded or not base64url', () => {
    const token = signTrackingToken({ kind: 'open', messageId }, key)
    const other = trackingKey([{ kid: 1, secret: 'another-unsubscribe-secret-of-32-chars!!' }])
    expect(verifyTrackingToken(signTrackingToken({ kind: 'open', messageId }, other), key)).toBeNull()
    const unsubscribe = signUnsubscribeToken(
      { tenantId: messageId, contactId: messageId, campaignId: messageId },
      unsubscribeKey({ secrets, sessionSecret: 'a-session-secret-of-at-least-32-characters' }),
    )
    for (const bad of [
      unsubscribe,
      token.slice(0, -1),
      `${token}A`,
      `${token}=`,
      token.replace(/.$/, '+'),
      '',
    ]) {
      expect(verifyTrackingToken(bad, key)).toBeNull()
    }
  })

  it('verifies tokens of an older key after a rotation, by key id', () => {
    const before = signTrackingToken({ kind: 'open', messageId }, key)
    const rotated = trackingKey([{ kid: 2, secret: 'the-next-unsubscribe-secret-of-32-chars' }, ...secrets])
    expect(verifyTrackingToken(before, rotated)).toEqual({ kind: 'open', messageId })
    expect(signTrackingToken({ kind: 'open', messageId }, rotated)).not.toBe(before)
    expect(verifyTrackingToken(before, trackingKey([{ kid: 2, secret: 'x'.repeat(32) }]))).toBeNull()
  })

  it('refuses to sign what is not a uuid or a link id', () => {
    expect(() => signTrackingToken({ kind: 'open', messageId: 'nope' }, key)).toThrow(TypeError)
    expect(() => signTrackingToken({ kind: 'click', messageId, linkId: 0 }, key)).toThrow(RangeError)
    expect(() => signTrackingToken({ kind: 'click', messageId, linkId: 2 ** 48 }, key)).toThrow(RangeError)
  })
})
