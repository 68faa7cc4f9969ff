import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * VERP return paths: the envelope sender of every message names the message, so a bounce that comes
 * back to `<prefix>-<id>-<mac>@<host>` says which message failed without parsing the bounce body.
 *   id:  the message's uuid as 26 characters of lowercase base32 (128 bits, no dashes)
 *   mac: HMAC-SHA256 over prefix, id and host, truncated to 10 base32 characters (50 bits)
 * Base32 rather than base36/base64 because mail servers may lowercase the local part on the way
 * back: every character survives that, and parsing lowercases before checking. With a prefix of at
 * most 20 characters the local part stays within 64 characters (RFC 5321). 50 bits of MAC are
 * enough here: a forger can only try addresses by getting mail delivered to them, one at a time.
 *
 * The host is inside the MAC, so an address minted for one tenant's return-path host does not
 * verify when replayed to another's. Secrets rotate like the unsubscribe keys: the first signs,
 * every listed one verifies, so bounces to mail sent before a rotation still resolve.
 */
export interface ReturnPathInput {
  messageId: string
  /** The return-path host: the tenant's `<bounce label>.<domain>` or BOUNCE_DOMAIN. */
  host: string
  secret: string
  prefix?: string
}

export const DEFAULT_RETURN_PATH_PREFIX = 'b'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'
const ID_CHARS = 26
const MAC_CHARS = 10
const PREFIX = /^[a-z0-9]{1,20}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const HOST = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/
const LOCAL_PART = new RegExp(`^([a-z0-9]{1,20})-([a-z2-7]{${ID_CHARS}})-([a-z2-7]{${MAC_CHARS}})$`)

export function buildReturnPath(input: ReturnPathInput): string {
  const prefix = input.prefix ?? DEFAULT_RETURN_PATH_PREFIX
  if (!PREFIX.test(prefix)) {
    throw new TypeError(
      `return-path prefix must be 1–20 lowercase letters or digits: ${JSON.stringify(prefix)}`,
    )
  }
  if (!UUID.test(input.messageId)) throw new TypeError(`not a uuid: ${JSON.stringify(input.messageId)}`)
  const host = normaliseHost(input.host)
  if (host === null) throw new TypeError(`not a return-path host: ${JSON.stringify(input.host)}`)
  const id = base32(Buffer.from(input.messageId.replaceAll('-', ''), 'hex'))
  const tag = mac(returnPathKey(input.secret), prefix, id, host)
  return `${prefix}-${id}-${tag}@${host}`
}

/**
 * The message a return path was minted for; null for anything else: malformed, another prefix, an
 * edited id or MAC, a MAC minted for another host, or a secret no longer listed.
 * `secrets`: the current signing secret first, then the retired ones still accepted.
 */
export function parseReturnPath(
  address: string,
  options: { secrets: readonly string[]; prefix?: string },
): { messageId: string } | null {
  if (options.secrets.length === 0) throw new RangeError('parseReturnPath needs at least one secret')
  if (address.length > 320) return null
  const at = address.lastIndexOf('@')
  if (at < 1) return null
  const match = LOCAL_PART.exec(address.slice(0, at).toLowerCase())
  const host = normaliseHost(address.slice(at + 1))
  if (!match || host === null) return null
  const [, prefix, id, presented] = match as unknown as [string, string, string, string]
  if (prefix !== (options.prefix ?? DEFAULT_RETURN_PATH_PREFIX)) return null
  const bytes = unbase32(id)
  // 26 characters carry 130 bits; the 2 spare ones must be zero, or two spellings would name one id.
  if (bytes === null || base32(bytes) !== id) return null
  // Every secret is tried (no early exit), so the time taken does not say which one matched.
  let genuine = false
  for (const secret of options.secrets) {
    const expected = Buffer.from(mac(returnPathKey(secret), prefix, id, host))
    genuine = timingSafeEqual(expected, Buffer.from(presented)) || genuine
  }
  return genuine ? { messageId: uuidString(bytes) } : null
}

/** Lowercase without a trailing dot; null when it cannot be a host name. */
function normaliseHost(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '')
  if (!HOST.test(name) || name.includes('..')) return null
  return name
}

/** A process holds one or two secrets (current, retired): derived once each, not once per message. */
const derivedKeys = new Map<string, Buffer>()
const MAX_DERIVED_KEYS = 16

/**
 * Derived under its own label, so a return-path secret shared by mistake never doubles as another key.
 * The derivation was 2 % of the worker's CPU per email when made for every message (profiled).
 */
function returnPathKey(secret: string): Buffer {
  if (secret.length === 0) throw new RangeError('the return-path secret is empty')
  let key = derivedKeys.get(secret)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'fairlane', 'return-path v1', 32))
    if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.clear()
    derivedKeys.set(secret, key)
  }
  return key
}

function mac(key: Buffer, prefix: string, id: string, host: string): string {
  // NUL-separated: no prefix/id/host split can be re-cut into another with the same MAC input.
  const digest = createHmac('sha256', key).update(`${prefix}\0${id}\0${host}`).digest()
  return base32(digest).slice(0, MAC_CHARS)
}

function base32(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out += ALPHABET[(buffer >> bits) & 31]
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31]
  return out
}

/** The 16 bytes of a 26-character id; null if a character is outside the alphabet. */
function unbase32(text: string): Buffer | null {
  const bytes: number[] = []
  let buffer = 0
  let bits = 0
  for (const char of text) {
    const value = ALPHABET.indexOf(char)
    if (value < 0) return null
    buffer = (buffer << 5) | value
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes.push((buffer >> bits) & 255)
    }
    buffer &= (1 << bits) - 1
  }
  return Buffer.from(bytes)
}

function uuidString(bytes: Buffer): string {
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
