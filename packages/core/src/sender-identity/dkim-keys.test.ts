import { createPublicKey, createSign, createVerify, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  decryptPrivateKey,
  dkimRecordValue,
  encryptPrivateKey,
  generateDkimKeyPair,
  loadSigningKey,
} from './dkim-keys'

const current = { kid: '2', key: randomBytes(32) }
const previous = { kid: '1', key: randomBytes(32) }

describe('DKIM keys', () => {
  it('generates a 2048-bit RSA pair whose public half is the record and private half signs', async () => {
    const pair = await generateDkimKeyPair()
    const publicKey = createPublicKey({
      key: Buffer.from(pair.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    })
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048)
    expect(dkimRecordValue(pair.publicKey)).toBe(`v=DKIM1; k=rsa; p=${pair.publicKey}`)

    const stored = encryptPrivateKey(pair.privateKeyPem, [current, previous])
    const signingKey = loadSigningKey(stored, [current])
    const signature = createSign('RSA-SHA256').update('header data').sign(signingKey)
    expect(createVerify('RSA-SHA256').update('header data').verify(publicKey, signature)).toBe(true)
  })

  it('encrypts under the first key, names it, and decrypts with any listed key', async () => {
    const { privateKeyPem } = await generateDkimKeyPair()
    const stored = encryptPrivateKey(privateKeyPem, [current, previous])
    expect(stored.encryptionKeyId).toBe('2')
    expect(stored.ciphertext).not.toContain('PRIVATE KEY')
    expect(decryptPrivateKey(stored, [previous, current])).toBe(privateKeyPem)
    // Fresh IV each time: the same key never encrypts to the same text.
    expect(encryptPrivateKey(privateKeyPem, [current]).ciphertext).not.toBe(stored.ciphertext)
  })

  it('refuses a tampered ciphertext, a relabelled key id and a key id no longer configured', async () => {
    const { privateKeyPem } = await generateDkimKeyPair()
    const stored = encryptPrivateKey(privateKeyPem, [current])
    const [iv, tag, body] = stored.ciphertext.split('.') as [string, string, string]
    const flipped = Buffer.from(body, 'base64url')
    flipped[10] = (flipped[10] ?? 0) ^ 1
    expect(() =>
      decryptPrivateKey({ ...stored, ciphertext: [iv, tag, flipped.toString('base64url')].join('.') }, [
        current,
      ]),
    ).toThrow()
    expect(() =>
      decryptPrivateKey({ ...stored, encryptionKeyId: '1' }, [{ kid: '1', key: current.key }]),
    ).toThrow()
    expect(() => decryptPrivateKey(stored, [previous])).toThrow(
      /key id 2, which DKIM_ENCRYPTION_KEY does not list/,
    )
    expect(() => decryptPrivateKey({ ...stored, ciphertext: 'x.y' }, [current])).toThrow(/malformed/)
    expect(() => encryptPrivateKey(privateKeyPem, [])).toThrow(/no DKIM encryption key/)
  })
})
