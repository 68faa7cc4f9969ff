import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
} from 'node:crypto'
import { promisify } from 'node:util'

const generateKeyPairAsync = promisify(generateKeyPair)

/** RSA-2048: the size receivers expect today (1024 is deprecated, 4096 overflows many DNS UIs). */
export const DKIM_KEY_BITS = 2048

/** One key-encryption key (DKIM_ENCRYPTION_KEY): its id is stored beside each ciphertext. */
export interface KeyEncryptionKey {
  kid: string
  /** 32 bytes: AES-256-GCM. */
  key: Buffer
}

export interface DkimKeyPair {
  /** Base64 DER SubjectPublicKeyInfo: the `p=` of the DNS record. */
  publicKey: string
  /** PKCS#8 PEM. Only ever held in memory: stored encrypted (`encryptPrivateKey`). */
  privateKeyPem: string
}

export interface EncryptedPrivateKey {
  /** `<iv>.<tag>.<ciphertext>`, base64url. */
  ciphertext: string
  encryptionKeyId: string
}

/** Generated off the event loop: an RSA-2048 pair takes tens of milliseconds. */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', { modulusLength: DKIM_KEY_BITS })
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  }
}

/** The TXT value to publish at `<selector>._domainkey.<domain>`. */
export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`
}

/**
 * AES-256-GCM under the first (current) key-encryption key, with a fresh 96-bit IV. The key id is
 * bound as additional data, so a ciphertext relabelled with another key id does not decrypt.
 */
export function encryptPrivateKey(
  privateKeyPem: string,
  keys: readonly KeyEncryptionKey[],
): EncryptedPrivateKey {
  const current = keys[0]
  if (!current) throw new RangeError('no DKIM encryption key is configured')
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', current.key, iv)
  cipher.setAAD(Buffer.from(current.kid))
  const body = Buffer.concat([cipher.update(privateKeyPem, 'utf8'), cipher.final()])
  const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))
  return { ciphertext: parts.join('.'), encryptionKeyId: current.kid }
}

/** Throws when the key id is not configured (any more) or the ciphertext was altered. */
export function decryptPrivateKey(stored: EncryptedPrivateKey, keys: readonly KeyEncryptionKey[]): string {
  const entry = keys.find((key) => key.kid === stored.encryptionKeyId)
  if (!entry) {
    throw new Error(
      `DKIM private key is encrypted under key id ${stored.encryptionKeyId}, which DKIM_ENCRYPTION_KEY does not list`,
    )
  }
  const [iv, tag, body] = stored.ciphertext.split('.').map((part) => Buffer.from(part, 'base64url'))
  if (!iv || !tag || !body || iv.length !== 12 || tag.length !== 16) {
    throw new Error('DKIM private key ciphertext is malformed')
  }
  const decipher = createDecipheriv('aes-256-gcm', entry.key, iv)
  decipher.setAAD(Buffer.from(entry.kid))
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
}

/**
 * The parsed key signers use. Parsing a PEM costs about 0.6 ms per signature on this machine, so a
 * worker parses once per domain and key and signs with the `KeyObject`.
 */
export function loadSigningKey(stored: EncryptedPrivateKey, keys: readonly KeyEncryptionKey[]): KeyObject {
  return createPrivateKey(decryptPrivateKey(stored, keys))
}
