import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * Unsubscribe tokens: who (tenant, contact) left which campaign, signed so nobody can unsubscribe
 * someone else by editing a link. Layout of version 2 (66 bytes, 88 base64url characters):
 *   version (1) · key id (1) · tenant id (16) · contact id (16) · campaign id (16) · HMAC-SHA256 truncated (16)
 * 128 bits of MAC are far beyond what an online forger can try; ids travel as raw bytes to keep the
 * List-Unsubscribe header short.
 *
 * The keys come from UNSUBSCRIBE_SECRET (`kid:secret,…`, the first signs), not from SESSION_SECRET:
 * a link in a mail sent last year must keep working after the session secret rotates, and after the
 * unsubscribe key itself rotates (the key id says which key to check, the old keys stay listed).
 * Version 1 tokens (no key id) were signed with a key derived from SESSION_SECRET; they keep
 * verifying against the legacy keys (the current SESSION_SECRET and any listed as key id 0).
 */
export interface UnsubscribeClaims {
  tenantId: string
  contactId: string
  campaignId: string
}

/** The keys that sign (the first) and verify unsubscribe tokens; built once per process. */
export interface UnsubscribeKey {
  readonly signing: { kid: number; key: Buffer }
  /** Version 2 tokens: key id → key. */
  readonly byKid: ReadonlyMap<number, Buffer>
  /** Version 1 tokens (minted before key ids): SESSION_SECRET-derived keys. */
  readonly legacy: readonly Buffer[]
}

/**
 * The token in a test send's unsubscribe link (`/u/preview`): never a real token (those are 88
 * characters), so whoever receives a test send cannot unsubscribe the contact it was rendered for.
 */
export const PREVIEW_UNSUBSCRIBE_TOKEN = 'preview'

const LEGACY_VERSION = 1
const VERSION = 2
const ID_BYTES = 16
const MAC_BYTES = 16
const LEGACY_BODY_BYTES = 1 + 3 * ID_BYTES
const BODY_BYTES = 2 + 3 * ID_BYTES
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * `secrets`: UNSUBSCRIBE_SECRET as parsed (key id 1–255 signs; 0 is an old SESSION_SECRET);
 * `sessionSecret`: the current SESSION_SECRET, for the links minted before unsubscribe keys existed.
 * Each key is derived with HKDF under its own label, so a token key never doubles as anything else.
 */
export function unsubscribeKey(options: {
  secrets: readonly { kid: number; secret: string }[]
  sessionSecret: string
}): UnsubscribeKey {
  const [first] = options.secrets
  if (!first || first.kid < 1 || first.kid > 255) {
    throw new RangeError('the signing unsubscribe key needs a key id from 1 to 255')
  }
  const byKid = new Map<number, Buffer>()
  const legacy = [legacyKey(options.sessionSecret)]
  for (const { kid, secret } of options.secrets) {
    if (kid === 0) legacy.push(legacyKey(secret))
    else byKid.set(kid, Buffer.from(hkdfSync('sha256', secret, 'fairlane', `unsubscribe v2 kid ${kid}`, 32)))
  }
  return { signing: { kid: first.kid, key: byKid.get(first.kid) as Buffer }, byKid, legacy }
}

/** The key version 1 tokens were signed with: HKDF of SESSION_SECRET (kept only to verify them). */
function legacyKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret, 'fairlane', 'unsubscribe v1', 32))
}

export function signUnsubscribeToken(claims: UnsubscribeClaims, keys: UnsubscribeKey): string {
  const body = Buffer.alloc(BODY_BYTES)
  body[0] = VERSION
  body[1] = keys.signing.kid
  uuidBytes(claims.tenantId).copy(body, 2)
  uuidBytes(claims.contactId).copy(body, 2 + ID_BYTES)
  uuidBytes(claims.campaignId).copy(body, 2 + 2 * ID_BYTES)
  return Buffer.concat([body, mac(body, keys.signing.key)]).toString('base64url')
}

/** The claims of a genuine token; null for anything else (malformed, unknown version or key id, edited, other key). */
export function verifyUnsubscribeToken(token: string, keys: UnsubscribeKey): UnsubscribeClaims | null {
  if (token.length > 200 || !TOKEN_PATTERN.test(token)) return null
  const bytes = Buffer.from(token, 'base64url')
  // Re-encoding must give the same string: otherwise two spellings would verify as one token.
  if (bytes.toString('base64url') !== token) return null
  if (bytes[0] === VERSION && bytes.length === BODY_BYTES + MAC_BYTES) {
    const key = keys.byKid.get(bytes[1] as number)
    const body = bytes.subarray(0, BODY_BYTES)
    if (!key || !timingSafeEqual(mac(body, key), bytes.subarray(BODY_BYTES))) return null
    return claimsAt(body, 2)
  }
  if (bytes[0] === LEGACY_VERSION && bytes.length === LEGACY_BODY_BYTES + MAC_BYTES) {
    const body = bytes.subarray(0, LEGACY_BODY_BYTES)
    const presented = bytes.subarray(LEGACY_BODY_BYTES)
    // Every legacy key is tried (no early exit), so the time taken does not say which one matched.
    let genuine = false
    for (const key of keys.legacy) genuine = timingSafeEqual(mac(body, key), presented) || genuine
    return genuine ? claimsAt(body, 1) : null
  }
  return null
}

function claimsAt(body: Buffer, offset: number): UnsubscribeClaims {
  return {
    tenantId: uuidString(body.subarray(offset, offset + ID_BYTES)),
    contactId: uuidString(body.subarray(offset + ID_BYTES, offset + 2 * ID_BYTES)),
    campaignId: uuidString(body.subarray(offset + 2 * ID_BYTES, offset + 3 * ID_BYTES)),
  }
}

function mac(body: Buffer, key: Buffer): Buffer {
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
