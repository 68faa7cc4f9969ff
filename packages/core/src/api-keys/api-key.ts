import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * API keys are 192 bits of randomness behind a readable `fl_` tag. Only a SHA-256 hash is stored:
 * with that much entropy a slow password hash adds nothing, and lookups stay one indexed read by
 * the visible prefix followed by a constant-time comparison of hashes.
 */
export const API_KEY_PREFIX_LENGTH = 12

export function generateApiKey(): string {
  return `fl_${randomBytes(24).toString('base64url')}`
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH)
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** Compares a presented key with a stored hash without leaking, through timing, how much matched. */
export function apiKeyMatches(presented: string, storedHash: string): boolean {
  const presentedHash = Buffer.from(hashApiKey(presented), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return stored.length === presentedHash.length && timingSafeEqual(presentedHash, stored)
}

/** Platform admin tokens: random, never stored by Fairlane itself (they come from ADMIN_TOKEN). */
export function generateAdminToken(): string {
  return `fla_${randomBytes(24).toString('base64url')}`
}
