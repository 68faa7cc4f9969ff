import { createHmac } from 'node:crypto'

/**
 * The first API key of a tenant provisioned with an `Idempotency-Key`: 192 bits of HMAC-SHA256 under a
 * server secret (SESSION_SECRET) over the tenant's random id and the idempotency key, in the same
 * `fl_` form as a random key. A retry of the call can so answer the key the lost answer carried
 * without the key ever being stored; without the secret it is as unguessable as a random one.
 * Rotating the secret leaves such keys working (only their hashes are checked) but a replay after it
 * answers no key.
 */
export function deriveApiKey(secret: string, input: { tenantId: string; idempotencyKey: string }): string {
  const mac = createHmac('sha256', secret)
    .update(`fairlane:provision:v1\0${input.tenantId}\0${input.idempotencyKey}`, 'utf8')
    .digest()
  return `fl_${mac.subarray(0, 24).toString('base64url')}`
}
