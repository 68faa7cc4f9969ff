import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { EncryptedPrivateKey } from '../sender-identity/dkim-keys'
import { resolveSenderSigning, type SigningDomain } from './resolve-sender-signing'

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
const at = new Date('2026-12-01T00:00:00Z')

function domain(overrides: Partial<SigningDomain> = {}): SigningDomain {
  return {
    name: 'example.com',
    status: 'verified',
    returnPathLabel: 'fl-bounces',
    dkim: {
      active: { selector: 'fl202612abcd', createdAt: at },
      pending: null,
      retired: [],
      activeFailedChecks: 0,
    },
    activeKey: { selector: 'fl202612abcd', ciphertext: 'c', encryptionKeyId: '1' },
    ...overrides,
  }
}

const loads = (key: KeyObject) => (_stored: EncryptedPrivateKey) => key

describe('resolveSenderSigning', () => {
  it('signs for a verified domain with its active key and return-path host', () => {
    expect(resolveSenderSigning(domain(), loads(rsa))).toEqual({
      kind: 'sign',
      domainName: 'example.com',
      selector: 'fl202612abcd',
      privateKey: rsa,
      returnPathHost: 'fl-bounces.example.com',
    })
  })

  it.each([
    ['a missing domain', undefined, 'sender_domain_unverified', 'no longer exists'],
    ['a pending domain', domain({ status: 'pending' }), 'sender_domain_unverified', 'is pending'],
    ['a failed domain', domain({ status: 'failed' }), 'sender_domain_unverified', 'is failed'],
    [
      'a verified domain whose active record failed twice',
      domain({ dkim: { ...domain().dkim, activeFailedChecks: 2 } }),
      'sender_domain_unverified',
      'no longer verifies',
    ],
    [
      'a domain whose first key never verified',
      domain({ dkim: { ...domain().dkim, active: null } }),
      'sender_domain_unverified',
      'no longer verifies',
    ],
    ['a domain without the active key stored', domain({ activeKey: null }), 'signing_failed', 'not stored'],
    [
      'a stored key of another selector',
      domain({ activeKey: { selector: 'old', ciphertext: 'c', encryptionKeyId: '1' } }),
      'signing_failed',
      'not stored',
    ],
  ])('holds %s', (_label, input, code, reason) => {
    const answer = resolveSenderSigning(input, loads(rsa))
    expect(answer).toMatchObject({ kind: 'hold', code })
    expect(answer.kind === 'hold' && answer.reason).toContain(reason)
  })

  it('signs on after one failed check of the active record (a DNS blip does not stop mail)', () => {
    const answer = resolveSenderSigning(
      domain({ dkim: { ...domain().dkim, activeFailedChecks: 1 } }),
      loads(rsa),
    )
    expect(answer.kind).toBe('sign')
  })

  it('holds when the key cannot be decrypted, is not RSA, or is not private', () => {
    const broken = resolveSenderSigning(domain(), () => {
      throw new Error('key id 9 is not listed')
    })
    expect(broken).toMatchObject({ kind: 'hold', code: 'signing_failed' })
    expect(broken.kind === 'hold' && broken.reason).toContain('key id 9 is not listed')
    const ed25519 = generateKeyPairSync('ed25519')
    expect(resolveSenderSigning(domain(), loads(ed25519.privateKey))).toMatchObject({
      kind: 'hold',
      code: 'signing_failed',
    })
    const publicOnly = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey
    expect(resolveSenderSigning(domain(), loads(publicOnly))).toMatchObject({
      kind: 'hold',
      code: 'signing_failed',
    })
  })
})
