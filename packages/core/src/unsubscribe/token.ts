import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * Unsubscribe tokens: who (tenant, contact) left which campaign, signed so nobody can unsubscribe
 * someone else by editing a link. Layout (65 bytes, 87 base64url characters):
 *   version (1) · tenant id (16) · contact id (16) · campaign id (16) · HMAC-SHA256 truncated (16)
 * 128 bits of MAC are far beyond what an online forger can try; ids travel as raw bytes to keep the
 * List-Unsubscribe header short. The key is derived from SESSION_SECRET with HKDF under its own
 * label, so a token key never doubles as a session key.
 */
export interface UnsubscribeClaims {
  tenantId: string
  contactId: string
  campaignId: string
}

export type UnsubscribeKey = Buffer & { readonly __unsubscribeKey: true }

const VERSION = 1
const ID_BYTES = 16
const MAC_BYTES = 16
const BODY_BYTES = 1 + 3 * ID_BYTES
const TOKEN_BYTES = BODY_BYTES + MAC_BYTES
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function unsubscribeKey(sessionSecret: string): UnsubscribeKey {
  const key = hkdfSync('sha256', sessionSecret, 'fairlane', 'unsubscribe v1', 32)
  return Buffer.from(key) as UnsubscribeKey
}

export function signUnsubscribeToken(claims: UnsubscribeClaims, key: UnsubscribeKey): string {
  const body = Buffer.alloc(BODY_BYTES)
  body[0] = VERSION
  uuidBytes(claims.tenantId).copy(body, 1)
  uuidBytes(claims.contactId).copy(body, 1 + ID_BYTES)
  uuidBytes(claims.campaignId).copy(body, 1 + 2 * ID_BYTES)
  return Buffer.concat([body, mac(body, key)]).toString('base64url')
}

/** The claims of a genuine token; null for anything else (malformed, other version, edited, other key). */
export function verifyUnsubscribeToken(token: string, key: UnsubscribeKey): UnsubscribeClaims | null {
  if (token.length > 200 || !TOKEN_PATTERN.test(token)) return null
  const bytes = Buffer.from(token, 'base64url')
  // Re-encoding must give the same string: otherwise two spellings would verify as one token.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null
  const body = bytes.subarray(0, BODY_BYTES)
  if (!timingSafeEqual(mac(body, key), bytes.subarray(BODY_BYTES))) return null
  if (body[0] !== VERSION) return null
  return {
    tenantId: uuidString(body.subarray(1, 1 + ID_BYTES)),
    contactId: uuidString(body.subarray(1 + ID_BYTES, 1 + 2 * ID_BYTES)),
    campaignId: uuidString(body.subarray(1 + 2 * ID_BYTES, BODY_BYTES)),
  }
}

function mac(body: Buffer, key: UnsubscribeKey): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES)
}

function uuidBytes(id: string): Buffer {
  if (!UUID.test(id)) throw new TypeError(`not a uuid: ${JSON.stringify(id)}`)
  return Buffer.from(id.replaceAll('-', ''), 'hex')
}

function uuidString(bytes: Buffer): string {
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
