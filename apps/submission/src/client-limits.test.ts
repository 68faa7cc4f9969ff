import { createClientCount } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { createAuthThrottle } from './client-limits'

describe('createAuthThrottle', () => {
  it('blocks an address at its Nth failure within the window, for the window, and only that address', () => {
    let now = 1_000_000
    const throttle = createAuthThrottle({ maxFailures: 3, windowMs: 60_000, now: () => now })
    throttle.failed('203.0.113.5')
    throttle.failed('203.0.113.5')
    expect(throttle.blockedForMs('203.0.113.5')).toBe(0)
    throttle.failed('203.0.113.5')
    expect(throttle.blockedForMs('203.0.113.5')).toBe(60_000)
    expect(throttle.blockedForMs('203.0.113.6')).toBe(0)
    now += 60_000
    expect(throttle.blockedForMs('203.0.113.5')).toBe(0)
  })

  it('forgets failures older than the window', () => {
    let now = 0
    const throttle = createAuthThrottle({ maxFailures: 2, windowMs: 1_000, now: () => now })
    throttle.failed('198.51.100.1')
    now = 1_500
    throttle.failed('198.51.100.1')
    expect(throttle.blockedForMs('198.51.100.1')).toBe(0)
  })

  it('counts an IPv6 /64 as one client', () => {
    const throttle = createAuthThrottle({ maxFailures: 2, windowMs: 1_000 })
    throttle.failed('2001:db8::1')
    throttle.failed('2001:db8::2')
    expect(throttle.blockedForMs('2001:db8::3')).toBeGreaterThan(0)
  })
})

describe('createClientCount', () => {
  it('admits up to the cap per address and releases on close', () => {
    const count = createClientCount(2)
    expect(count.admit('a', '192.0.2.1')).toBe(true)
    expect(count.admit('b', '192.0.2.1')).toBe(true)
    expect(count.admit('c', '192.0.2.1')).toBe(false)
    expect(count.admit('d', '192.0.2.2')).toBe(true)
    count.release('c')
    expect(count.admit('e', '192.0.2.1')).toBe(false)
    count.release('a')
    expect(count.admit('f', '192.0.2.1')).toBe(true)
  })
})
