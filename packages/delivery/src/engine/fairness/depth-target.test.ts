import { describe, expect, it } from 'vitest'
import { createDepthTarget } from './depth-target'

describe('createDepthTarget', () => {
  it('starts at the floor, before anything was released', () => {
    const target = createDepthTarget({ minDepth: 40, maxDepth: 300, queueSeconds: 0.5 })
    expect(target.depth(0)).toBe(40)
  })

  it('holds half a second of the release rate over the window', () => {
    const target = createDepthTarget({ minDepth: 40, maxDepth: 1_000, queueSeconds: 0.5, windowMs: 3_000 })
    // 21 jobs every 100 ms: 210 a second.
    for (let atMs = 0; atMs < 3_000; atMs += 100) target.record(atMs, 21)
    expect(target.ratePerSec(2_950)).toBeCloseTo(210, 5)
    expect(target.depth(2_950)).toBe(105)
  })

  it('stays within its floor and ceiling', () => {
    const slow = createDepthTarget({ minDepth: 40, maxDepth: 300, queueSeconds: 0.5, windowMs: 1_000 })
    slow.record(0, 10)
    expect(slow.depth(10)).toBe(40)
    const fast = createDepthTarget({ minDepth: 40, maxDepth: 300, queueSeconds: 0.5, windowMs: 1_000 })
    fast.record(0, 5_000)
    expect(fast.depth(10)).toBe(300)
  })

  it('reads a floor given as a function at each call: it follows the messages the jobs carry', () => {
    let messagesPerJob = 50
    const target = createDepthTarget({
      minDepth: () => Math.min(300, 2 * 8 * messagesPerJob),
      maxDepth: 300,
      queueSeconds: 0.5,
      windowMs: 1_000,
    })
    target.record(0, 90)
    expect(target.depth(10)).toBe(300)
    // Turns of 3 make the jobs now: 16 jobs are 48 messages, and the rate's half second is 45.
    messagesPerJob = 3
    expect(target.depth(10)).toBe(48)
  })

  it('forgets releases older than the window', () => {
    const target = createDepthTarget({ minDepth: 1, maxDepth: 10_000, queueSeconds: 1, windowMs: 1_000 })
    target.record(0, 500)
    target.record(600, 100)
    expect(target.depth(900)).toBe(600)
    expect(target.depth(1_000)).toBe(100)
    expect(target.depth(1_600)).toBe(1)
  })

  it("grows from the floor to a fast lane's depth within a few windows", () => {
    // A lane that finishes whatever is queued within each 100 ms tick, up to 2,000 a second.
    const target = createDepthTarget({ minDepth: 40, maxDepth: 2_000, queueSeconds: 0.5, windowMs: 1_000 })
    let atMs = 0
    for (; atMs < 5_000; atMs += 100) target.record(atMs, Math.min(target.depth(atMs), 200))
    // Read at the last release: the window then holds ten ticks of 200.
    expect(target.depth(atMs - 100)).toBe(1_000)
  })

  it('refuses a nonsensical configuration', () => {
    expect(() => createDepthTarget({ minDepth: 0, maxDepth: 10, queueSeconds: 1 })).toThrow(RangeError)
    expect(() => createDepthTarget({ minDepth: 1, maxDepth: 10, queueSeconds: 0 })).toThrow(RangeError)
  })
})
