import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * Open and click tokens: which message was opened, which of its links was clicked. They name a
 * tracked link by id, never by URL, so a token cannot be edited into an open redirect and stays short.
 * Layout (base64url):
 *   version (1) · key id (1) · kind (1: open 1, click 2) · message id (16) · [link id (6), clicks only] · HMAC-SHA256 truncated (16)
 * An open token is 47 characters, a click token 55. The kind is inside the MAC, so an open token can
 * never pass for a click token or the other way round.
 *
 * Keys come from UNSUBSCRIBE_SECRET's keys (the first signs, all verify, by key id — the same rotation
 * as unsubscribe links), each derived with HKDF under its own label ('fairlane-tracking'), so a
 * tracking key never doubles as an unsubscribe or return-path key.
 */
export type TrackingClaims =
  | { kind: 'open'; messageId: string }
  | { kind: 'click'; messageId: string; linkId: number }

export interface TrackingKey {
  readonly signing: { kid: number; key: Buffer }
  readonly byKid: ReadonlyMap<number, Buffer>
}

const VERSION = 1
const KIND_OPEN = 1
const KIND_CLICK = 2
const ID_BYTES = 16
const LINK_BYTES = 6
const MAC_BYTES = 16
const HEAD_BYTES = 3
const OPEN_BODY = HEAD_BYTES + ID_BYTES
const CLICK_BODY = OPEN_BODY + LINK_BYTES
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{40,80}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Link ids are a bigint identity; 6 bytes (2^48) is more links than the table will ever hold. */
const MAX_LINK_ID = 2 ** 48 - 1

/** `secrets`: UNSUBSCRIBE_SECRET as parsed; key id 0 (an old SESSION_SECRET) never signs tracking tokens. */
export function trackingKey(secrets: readonly { kid: number; secret: string }[]): TrackingKey {
  const [first] = secrets
  if (!first || first.kid < 1 || first.kid > 255) {
    throw new RangeError('the signing tracking key needs a key id from 1 to 255')
  }
  const byKid = new Map<number, Buffer>()
  for (const { kid, secret } of secrets) {
    if (kid < 1 || kid > 255) continue
    byKid.set(kid, Buffer.from(hkdfSync('sha256', secret, `kid ${kid}`, 'fairlane-tracking', 32)))
  }
  return { signing: { kid: first.kid, key: byKid.get(first.kid) as Buffer }, byKid }
}

export function signTrackingToken(claims: TrackingClaims, keys: TrackingKey): string {
  const click = claims.kind === 'click'
  const body = Buffer.alloc(click ? CLICK_BODY : OPEN_BODY)
  body[0] = VERSION
  body[1] = keys.signing.kid
  body[2] = click ? KIND_CLICK : KIND_OPEN
  uuidBytes(claims.messageId).copy(body, HEAD_BYTES)
  if (click) {
    if (!Number.isSafeInteger(claims.linkId) || claims.linkId < 1 || claims.linkId > MAX_LINK_ID) {
      throw new RangeError(`not a link id: ${claims.linkId}`)
    }
    body.writeUIntBE(claims.linkId, OPEN_BODY, LINK_BYTES)
  }
  return Buffer.concat([body, mac(body, keys.signing.key)]).toString('base64url')
}

/** The claims of a genuine token; null for anything else (malformed, unknown key id, edited, other key). */
export function verifyTrackingToken(token: string, keys: TrackingKey): TrackingClaims | null {
  if (!TOKEN_PATTERN.test(token)) return null
  const bytes = Buffer.from(token, 'base64url')
  // Re-encoding must give the same string: otherwise two spellings would verify as one token.
  if (bytes.toString('base64url') !== token || bytes[0] !== VERSION) return null
  const kind = bytes[2]
  const bodyBytes = kind === KIND_OPEN ? OPEN_BODY : kind === KIND_CLICK ? CLICK_BODY : -1
  if (bodyBytes === -1 || bytes.length !== bodyBytes + MAC_BYTES) return null
  const key = keys.byKid.get(bytes[1] as number)
  const body = bytes.subarray(0, bodyBytes)
  if (!key || !timingSafeEqual(mac(body, key), bytes.subarray(bodyBytes))) return null
  const messageId = uuidString(body.subarray(HEAD_BYTES, OPEN_BODY))
  if (kind === KIND_OPEN) return { kind: 'open', messageId }
  return { kind: 'click', messageId, linkId: body.readUIntBE(OPEN_BODY, LINK_BYTES) }
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
