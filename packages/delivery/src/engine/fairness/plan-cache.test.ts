import type { BucketPlan } from '@fairlane/fairness'
import { describe, expect, it } from 'vitest'
import { createPlanCache } from './plan-cache'

/** A plan source whose answers the test hands out, one by one, and a clock it moves by hand. */
function fakeSource() {
  const calls: string[] = []
  const pending: Array<{ resolve: (plan: BucketPlan | undefined) => void; reject: (error: Error) => void }> =
    []
  let nowMs = 1_000
  return {
    calls,
    now: () => nowMs,
    advance: (ms: number) => {
      nowMs += ms
    },
    load: (tenantId: string) =>
      new Promise<BucketPlan | undefined>((resolve, reject) => {
        calls.push(tenantId)
        pending.push({ resolve, reject })
      }),
    answer: (plan: BucketPlan | undefined) => pending.shift()?.resolve(plan),
    fail: (error: Error) => pending.shift()?.reject(error),
  }
}

const slow = { ratePerSec: 20, burst: 5 }
const fast = { ratePerSec: 200, burst: 50 }

describe('createPlanCache', () => {
  it('reads a plan once per refreshMs and again after it', async () => {
    const source = fakeSource()
    const cache = createPlanCache({ load: source.load, refreshMs: 2_000, now: source.now })
    const first = cache.get('t1')
    source.answer(fast)
    expect(await first).toEqual(fast)
    source.advance(1_999)
    expect(await cache.get('t1')).toEqual(fast)
    expect(source.calls).toEqual(['t1'])

    source.advance(1)
    const refreshed = cache.get('t1')
    source.answer(slow)
    expect(await refreshed).toEqual(slow)
    expect(source.calls).toEqual(['t1', 't1'])
  })

  it('keeps plans per tenant and remembers an unknown tenant as undefined', async () => {
    const source = fakeSource()
    const cache = createPlanCache({ load: source.load, refreshMs: 2_000, now: source.now })
    const known = cache.get('t1')
    const unknown = cache.get('gone')
    source.answer(fast)
    source.answer(undefined)
    expect(await known).toEqual(fast)
    expect(await unknown).toBeUndefined()
    expect(await cache.get('gone')).toBeUndefined()
    expect(source.calls).toEqual(['t1', 'gone'])
  })

  it('shares one read among concurrent callers (single flight)', async () => {
    const source = fakeSource()
    const cache = createPlanCache({ load: source.load, refreshMs: 2_000, now: source.now })
    const callers = Array.from({ length: 10 }, () => cache.get('t1'))
    expect(source.calls).toEqual(['t1'])
    source.answer(fast)
    expect(await Promise.all(callers)).toEqual(Array.from({ length: 10 }, () => fast))

    // An expired entry is also refreshed once, however many callers ask meanwhile.
    source.advance(2_000)
    const again = [cache.get('t1'), cache.get('t1'), cache.get('t1')]
    expect(source.calls).toEqual(['t1', 't1'])
    source.answer(slow)
    expect(await Promise.all(again)).toEqual([slow, slow, slow])
  })

  it('keeps the last known plan when a refresh fails, and reads again on the next call', async () => {
    const source = fakeSource()
    const cache = createPlanCache({ load: source.load, refreshMs: 2_000, now: source.now })
    const first = cache.get('t1')
    source.answer(fast)
    await first
    source.advance(2_000)
    const during = cache.get('t1')
    source.fail(new Error('connection terminated'))
    expect(await during).toEqual(fast)

    // The failed read did not count as a refresh: the next call tries the database again.
    const next = cache.get('t1')
    expect(source.calls).toEqual(['t1', 't1', 't1'])
    source.answer(slow)
    expect(await next).toEqual(slow)
  })

  it('rejects when nothing is known and the read fails, and does not remember the failure', async () => {
    const source = fakeSource()
    const cache = createPlanCache({ load: source.load, refreshMs: 2_000, now: source.now })
    const first = cache.get('t1')
    source.fail(new Error('connection terminated'))
    await expect(first).rejects.toThrow('connection terminated')

    const retry = cache.get('t1')
    expect(source.calls).toEqual(['t1', 't1'])
    source.answer(slow)
    expect(await retry).toEqual(slow)
  })
})
