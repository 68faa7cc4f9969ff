import type { StoredApiKey } from '@fairlane/db/queries/api-keys'
import { describe, expect, it } from 'vitest'
import { API_KEY_CACHE_TTL_MS, createApiKeyCache } from './api-key-cache'

const row = (id: string, revokedAt: Date | null = null): StoredApiKey => ({
  id,
  tenantId: 't1',
  prefix: `fl_${id}`,
  keyHash: 'h',
  scope: 'sending',
  domain: 'mail.example.test',
  revokedAt,
  lastUsedAt: null,
  defaultFrom: null,
  defaultReplyTo: null,
  txRatePerSec: null,
  txBurst: null,
  quotaDaily: null,
  quotaMonthly: null,
})

function setup(options: { maxEntries?: number } = {}) {
  let clock = 1_000_000
  const cache = createApiKeyCache({ ...options, now: () => clock })
  let loads = 0
  const lookup = (prefix: string, value: StoredApiKey | null | Error = row(prefix)) =>
    cache.lookup(prefix, async () => {
      loads++
      if (value instanceof Error) throw value
      return value
    })
  return {
    lookup,
    loads: () => loads,
    advance: (ms: number) => {
      clock += ms
    },
  }
}

describe('the API key cache', () => {
  it('reads a key once per TTL, then again', async () => {
    const cache = setup()
    expect(await cache.lookup('a')).toEqual(row('a'))
    cache.advance(API_KEY_CACHE_TTL_MS - 1)
    // A cached row carries the key's scope and domain: the scope check needs no read of its own.
    expect(await cache.lookup('a', row('a', new Date()))).toMatchObject({
      scope: 'sending',
      domain: 'mail.example.test',
    })
    expect(cache.loads()).toBe(1)
    cache.advance(1)
    // The revocation is seen once the entry expires.
    expect((await cache.lookup('a', row('a', new Date())))?.revokedAt).not.toBeNull()
    expect(cache.loads()).toBe(2)
  })

  it('shares one load between concurrent misses', async () => {
    const cache = setup()
    await Promise.all([cache.lookup('a'), cache.lookup('a'), cache.lookup('a')])
    expect(cache.loads()).toBe(1)
  })

  it('never remembers a missing key or a failed load', async () => {
    const cache = setup()
    expect(await cache.lookup('a', null)).toBeNull()
    await expect(cache.lookup('b', new Error('database away'))).rejects.toThrow('database away')
    expect(await cache.lookup('a')).toEqual(row('a'))
    expect(await cache.lookup('b')).toEqual(row('b'))
    expect(cache.loads()).toBe(4)
  })

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = setup({ maxEntries: 2 })
    await cache.lookup('a')
    await cache.lookup('b')
    await cache.lookup('c')
    await cache.lookup('c')
    await cache.lookup('b')
    expect(cache.loads()).toBe(3)
    await cache.lookup('a')
    expect(cache.loads()).toBe(4)
  })
})
