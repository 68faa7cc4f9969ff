import { describe, expect, it } from 'vitest'
import { apiKeyMatches, apiKeyPrefix, generateApiKey, hashApiKey } from './api-key'

describe('api keys', () => {
  it('generates distinct keys with a readable tag and a 12-character visible prefix', () => {
    const a = generateApiKey()
    const b = generateApiKey()
    expect(a).not.toBe(b)
    expect(a).toMatch(/^fl_[A-Za-z0-9_-]{32}$/)
    expect(apiKeyPrefix(a)).toHaveLength(12)
    expect(a.startsWith(apiKeyPrefix(a))).toBe(true)
  })

  it('stores a hash that matches only the same key', () => {
    const key = generateApiKey()
    const stored = hashApiKey(key)
    expect(stored).not.toContain(key)
    expect(apiKeyMatches(key, stored)).toBe(true)
    expect(apiKeyMatches(`${key}x`, stored)).toBe(false)
    expect(apiKeyMatches(generateApiKey(), stored)).toBe(false)
  })

  it('treats a malformed stored hash as no match instead of throwing', () => {
    expect(apiKeyMatches(generateApiKey(), 'not-hex')).toBe(false)
  })
})
