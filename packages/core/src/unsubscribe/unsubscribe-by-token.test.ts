import { describe, expect, it } from 'vitest'
import type { UnsubscribeStore, UnsubscribeTarget } from './ports'
import { signUnsubscribeToken, unsubscribeKey } from './token'
import { describeUnsubscribe, maskEmail, unsubscribeByToken } from './unsubscribe-by-token'

const key = unsubscribeKey({
  secrets: [{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }],
  sessionSecret: 'a-session-secret-of-at-least-32-characters',
})
const claims = {
  tenantId: '0b6f6f5e-3c1a-4f43-9d53-7c1e2b1f0a11',
  contactId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  campaignId: 'ffffffff-0000-4000-8000-123456789abc',
}

/** An in-memory store with one contact, recording every write. */
function memoryStore() {
  const target: UnsubscribeTarget = { tenantName: 'Acme', email: 'jane@example.com', unsubscribedAt: null }
  const writes: string[] = []
  const store: UnsubscribeStore = {
    findTarget: async (query) => (query.contactId === claims.contactId ? { ...target } : null),
    unsubscribe: async (input) => {
      writes.push(input.contactId)
      if (input.contactId !== claims.contactId) return null
      target.unsubscribedAt ??= input.now
      return { ...target }
    },
  }
  return { store, writes }
}

const clock = { now: () => new Date('2026-05-01T10:00:00Z') }

describe('unsubscribe by token', () => {
  it('describes without writing, then unsubscribes idempotently', async () => {
    const { store, writes } = memoryStore()
    const token = signUnsubscribeToken(claims, key)
    expect(await describeUnsubscribe(token, { key, store, clock })).toMatchObject({ kind: 'found' })
    expect(writes).toEqual([])
    const first = await unsubscribeByToken(token, { key, store, clock })
    const second = await unsubscribeByToken(token, { key, store, clock: { now: () => new Date() } })
    expect(first).toMatchObject({ kind: 'found', target: { unsubscribedAt: clock.now() } })
    expect(second).toMatchObject({ kind: 'found', target: { unsubscribedAt: clock.now() } })
  })

  it('changes nothing for a tampered token', async () => {
    const { store, writes } = memoryStore()
    const token = signUnsubscribeToken(claims, key)
    const tampered = `${token.slice(0, 10)}${token[10] === 'x' ? 'y' : 'x'}${token.slice(11)}`
    expect(await unsubscribeByToken(tampered, { key, store, clock })).toEqual({ kind: 'invalid-token' })
    expect(await describeUnsubscribe(tampered, { key, store, clock })).toEqual({ kind: 'invalid-token' })
    expect(writes).toEqual([])
  })

  it('treats a deleted contact as done', async () => {
    const { store } = memoryStore()
    const token = signUnsubscribeToken({ ...claims, contactId: '11111111-1111-4111-8111-111111111111' }, key)
    expect(await unsubscribeByToken(token, { key, store, clock })).toEqual({ kind: 'gone' })
  })

  it('masks addresses', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('ja******@example.com')
    expect(maskEmail('j@example.com')).toBe('j***@example.com')
    expect(maskEmail('nonsense')).toBe('***')
  })
})
