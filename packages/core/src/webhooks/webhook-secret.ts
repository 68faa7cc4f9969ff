import { randomBytes } from 'node:crypto'

/** Standard Webhooks' prefix of a signing secret; the key is the base64 after it. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/**
 * How long a rotated-out secret still signs (beside the new one): long enough for a tenant to deploy
 * the new secret to every receiver without rejecting a single request meanwhile.
 */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits, HMAC-SHA256's block of key). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`
}
