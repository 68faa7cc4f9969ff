import { describe, expect, it } from 'vitest'
import { decideLockout, type LockoutPolicy, lockMsAfter } from './lockout'

const policy: LockoutPolicy = {
  freeAttempts: 3,
  firstLockMs: 60_000,
  longestLockMs: 600_000,
  memoryMs: 86_400_000,
}

describe('decideLockout', () => {
  it('lets the free attempts through, the last of them starting the first lock', () => {
    let state = null
    const locks: number[] = []
    for (let attempt = 0; attempt < 3; attempt++) {
      const decision = decideLockout(state, 1_000, policy)
      if (!decision.allowed) throw new Error('refused too early')
      locks.push(decision.next.lockedUntilMs - 1_000)
      state = decision.next
    }
    expect(locks).toEqual([0, 0, 60_000])
    expect(decideLockout(state, 1_000 + 59_999, policy)).toEqual({ allowed: false, waitMs: 1 })
  })

  it('doubles the lock with every attempt after it, up to the longest', () => {
    expect([3, 4, 5, 6, 7, 8, 40].map((attempts) => lockMsAfter(attempts, policy))).toEqual([
      60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000,
    ])
    const decision = decideLockout({ attempts: 4, lockedUntilMs: 5_000 }, 5_000, policy)
    expect(decision).toEqual({
      allowed: true,
      next: { attempts: 5, lockedUntilMs: 5_000 + 240_000 },
      expiresAtMs: 5_000 + 240_000 + policy.memoryMs,
    })
  })
})
