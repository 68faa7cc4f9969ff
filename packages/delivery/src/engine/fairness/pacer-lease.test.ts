import { describe, expect, it } from 'vitest'
import { DEFAULT_PACER_REDIS_TIMEOUT_MS, PACER_TUNING } from './pacer'
import { checkLeaseTiming, leaseHolderId, mayLead, PACER_LEASE, trustedUntil } from './pacer-lease'

describe('pacer lease timing', () => {
  it('trusts a renewal from the moment it was sent, less the margin', () => {
    expect(trustedUntil(10_000, { ttlMs: 5_000, marginMs: 500 })).toBe(14_500)
  })

  it('lets a leader act only before its trusted deadline', () => {
    const lease = { term: 3, trustedUntilMs: 14_500 }
    expect(mayLead(lease, 14_499)).toBe(true)
    expect(mayLead(lease, 14_500)).toBe(false)
    expect(mayLead(undefined, 0)).toBe(false)
  })

  it('gives each process a holder id of host, pid and a random part', () => {
    expect(leaseHolderId('worker-7', 4242, 'ab12cd34')).toBe('worker-7:4242:ab12cd34')
    const [a, b] = [leaseHolderId('h', 1), leaseHolderId('h', 1)]
    expect(a).toMatch(/^h:1:[0-9a-f]{8}$/)
    expect(a).not.toBe(b)
  })

  it('keeps the default lease several ticks long and longer than a Redis timeout', () => {
    const defaults = {
      ...PACER_LEASE,
      tickMs: PACER_TUNING.tickMs,
      idleTickMs: PACER_TUNING.idleTickMs,
      redisTimeoutMs: DEFAULT_PACER_REDIS_TIMEOUT_MS,
    }
    expect(checkLeaseTiming(defaults)).toEqual([])
    expect(checkLeaseTiming({ ...defaults, ttlMs: 1_000 })).toEqual([
      'a lease of 1000 ms is not several ticks of 250 ms long',
      "a lease of 1000 ms does not outlast one Redis call's timeout (2000 ms)",
    ])
  })
})
