import { createHmac, randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { signWebhook } from './sign'

const secretOf = (bytes: Buffer) => `whsec_${bytes.toString('base64')}`
const body = JSON.stringify({
  type: 'email.sent',
  createdAt: '2026-12-04T17:00:00.000Z',
  data: { to: 'a@b.c' },
})

describe('signWebhook', () => {
  it('writes headers that the standardwebhooks package verifies', () => {
    const secret = secretOf(randomBytes(32))
    const headers = signWebhook({ webhookId: 'msg_1', timestamp: new Date(), body, secrets: [secret] })
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body))
  })

  it('matches a reference HMAC-SHA256 of "id.timestamp.body" keyed with the base64 after whsec_', () => {
    const key = randomBytes(32)
    const timestamp = new Date('2026-12-04T17:00:00.123Z')
    const headers = signWebhook({ webhookId: 'msg_ref', timestamp, body, secrets: [secretOf(key)] })
    const seconds = Math.floor(timestamp.getTime() / 1000)
    const expected = createHmac('sha256', key).update(`msg_ref.${seconds}.${body}`).digest('base64')
    expect(headers['webhook-timestamp']).toBe(String(seconds))
    expect(headers['webhook-signature']).toBe(`v1,${expected}`)
  })

  it('signs with both secrets during a rotation, and each alone verifies', () => {
    const current = secretOf(randomBytes(32))
    const previous = secretOf(randomBytes(32))
    const headers = signWebhook({
      webhookId: 'msg_2',
      timestamp: new Date(),
      body,
      secrets: [current, previous],
    })
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(() => new Webhook(current).verify(body, { ...headers })).not.toThrow()
    expect(() => new Webhook(previous).verify(body, { ...headers })).not.toThrow()
    expect(() => new Webhook(secretOf(randomBytes(32))).verify(body, { ...headers })).toThrow()
  })

  it('refuses to sign without a secret', () => {
    expect(() => signWebhook({ webhookId: 'x', timestamp: new Date(), body, secrets: [] })).toThrow()
  })
})
