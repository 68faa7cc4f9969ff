import { AppError } from '../errors/app-error'

/**
 * How long an `Idempotency-Key` maps to its message. After that the key is released and may name a
 * new message: a client retrying a day later is not retrying the same request any more.
 */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key'

const PRINTABLE = /^[\x20-\x7e]{1,255}$/

/** The header's value, or null when absent; 400 when present but not 1-255 printable ASCII characters. */
export function parseIdempotencyKey(header: string | null): string | null {
  if (header === null) return null
  const key = header.trim()
  if (!PRINTABLE.test(key)) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      details: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    })
  }
  return key
}
