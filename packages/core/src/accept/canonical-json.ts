import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted at every depth and no whitespace, so two bodies that mean the same
 * (`{"to":…,"template":…}` and `{"template":…,"to":…}`) hash the same for idempotency. Array order
 * is kept: it is meaningful.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
}

/** SHA-256 (hex) of the canonical JSON of a request body: what `messages.request_hash` stores. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')
}
