import { type BucketPlan, enforcedPlan, type TakeResult, type TokenBuckets } from '@fairlane/fairness'
import { describe, expect, it } from 'vitest'
import type { PlanCache } from './plan-cache'
import { createRefusalTracker, createTenantGate, PAUSED_RECHECK_MS, planSourceFor } from './tenant-gate'

/** TokenBuckets that answer takes from a script and record every call. */
function fakeBuckets(answers: TakeResult[] = []) {
  const takes: Array<{ bucket: string; plan: BucketPlan }> = []
  const buckets: TokenBuckets = {
    async take(bucket, plan) {
      takes.push({ bucket, plan })
      return answers.shift() ?? { ok: true, atMs: 0 }
    },
    async takeUpTo(bucket, plan, count) {
      takes.push({ bucket, plan })
      const answer = answers.shift() ?? { ok: true, atMs: 0 }
      // Scripted as one answer per batch: a refusal grants none of it.
      return answer.ok
        ? { granted: count, all: true, atMs: answer.atMs }
        : {
            granted: 0,
            all: false,
            atMs: answer.atMs,
            retryAfterMs: answer.retryAfterMs,
            position: answer.position,
          }
    },
    async refusalTotals(names) {
      return names.map(() => 0)
    },
    async deferredRecently() {
      return new Map()
    },
  }
  return { buckets, takes }
}

const tenantPlan: BucketPlan = { ratePerSec: 20, burst: 5 }
const transactional: BucketPlan = { ratePerSec: 1_000, burst: 1_000 }

describe('createTenantGate', () => {
  it('admits with a token from the lane bucket of the tenant, under its plan less the hand-off reserve', async () => {
    const fake = fakeBuckets([{ ok: true, atMs: 1 }])
    const gate = createTenantGate({ lane: 'bulk', buckets: fake.buckets, planFor: async () => tenantPlan })
    expect(await gate.admit('t1')).toMatchObject({ ok: true })
    // 20/s keeps 100 ms of its rate (2 tokens) out of its burst of 5.
    expect(fake.takes).toEqual([{ bucket: 'bulk:t1', plan: { ratePerSec: 20, burst: 3 } }])
  })

  it('holds a paused tenant’s bulk jobs without taking a token, and asks again after PAUSED_RECHECK_MS', async () => {
    const fake = fakeBuckets()
    const gate = createTenantGate({
      lane: 'bulk',
      buckets: fake.buckets,
      planFor: async () => ({ ...tenantPlan, bulkPaused: true }),
    })
    expect(await gate.admit('t1')).toEqual({ ok: false, delayMs: PAUSED_RECHECK_MS })
    expect(await gate.admitUpTo?.('t1', 10)).toEqual({ granted: 0, delayMs: PAUSED_RECHECK_MS })
    expect(fake.takes).toEqual([])
  })

  it('defers a refused job at least until its token, one interval per place in line', async () => {
    // rate 20: one interval is 50 ms.
    const refusals: TakeResult[] = [1, 2, 3].map((position) => ({
      ok: false,
      atMs: 1,
      retryAfterMs: 37.5,
      position,
    }))
    const fake = fakeBuckets(refusals)
    const gate = createTenantGate({
      lane: 'bulk',
      buckets: fake.buckets,
      planFor: async () => tenantPlan,
      random: () => 0,
    })
    const delays = []
    for (let i = 0; i < 3; i++) {
      const admission = await gate.admit('t1')
      if (admission.ok) throw new Error('expected a refusal')
      delays.push(admission.delayMs)
    }
    expect(delays).toEqual([38, 88, 138])
  })

  it('jitters the deferral below one interval, never before the token', async () => {
    const refusal: TakeResult = { ok: false, atMs: 1, retryAfterMs: 10, position: 2 }
    const fake = fakeBuckets(Array.from({ length: 200 }, () => refusal))
    const gate = createTenantGate({ lane: 'bulk', buckets: fake.buckets, planFor: async () => tenantPlan })
    for (let i = 0; i < 200; i++) {
      const admission = await gate.admit('t1')
      if (admission.ok) throw new Error('expected a refusal')
      // Slot 2: retryAfterMs + one interval, plus a jitter in [0, 50).
      expect(admission.delayMs).toBeGreaterThanOrEqual(60)
      expect(admission.delayMs).toBeLessThanOrEqual(110)
      expect(Number.isInteger(admission.delayMs)).toBe(true)
    }
  })

  it('lets a job of a tenant without a plan through without touching the buckets', async () => {
    const fake = fakeBuckets()
    const gate = createTenantGate({ lane: 'bulk', buckets: fake.buckets, planFor: async () => undefined })
    expect(await gate.admit('gone')).toEqual({ ok: true })
    expect(fake.takes).toEqual([])
  })
})

describe('planSourceFor', () => {
  function fakePlans(): PlanCache & { asked: string[] } {
    const asked: string[] = []
    return {
      asked,
      async get(tenantId) {
        asked.push(tenantId)
        return tenantPlan
      },
    }
  }

  it('gives bulk the tenant plan from the plan cache', async () => {
    const plans = fakePlans()
    expect(await planSourceFor('bulk', { plans, transactional })('t1')).toEqual(tenantPlan)
    expect(plans.asked).toEqual(['t1'])
  })

  it('gives critical and default the platform transactional plan, without reading the tenant plan', async () => {
    const plans = fakePlans()
    expect(await planSourceFor('critical', { plans, transactional })('t1')).toEqual(transactional)
    expect(await planSourceFor('default', { plans, transactional })('t1')).toEqual(transactional)
    expect(plans.asked).toEqual([])
  })

  it('keeps each lane in a bucket of its own: bulk mail never spends a critical token', async () => {
    const fake = fakeBuckets()
    const plans = fakePlans()
    for (const lane of ['bulk', 'critical', 'default'] as const) {
      const gate = createTenantGate({
        lane,
        buckets: fake.buckets,
        planFor: planSourceFor(lane, { plans, transactional }),
      })
      await gate.admit('t1')
    }
    expect(fake.takes).toEqual([
      { bucket: 'bulk:t1', plan: enforcedPlan(tenantPlan) },
      { bucket: 'critical:t1', plan: enforcedPlan(transactional) },
      { bucket: 'default:t1', plan: enforcedPlan(transactional) },
    ])
  })
})

describe('createRefusalTracker', () => {
  it("reports the refusals of each tenant's bulk bucket since the last call", async () => {
    const totals = new Map<string, number>([['bulk:t1', 5]])
    const asked: string[][] = []
    const refusals = createRefusalTracker({
      async refusalTotals(names) {
        asked.push(names)
        return names.map((name) => totals.get(name) ?? 0)
      },
    })
    // First sight only takes note of the totals.
    expect([...(await refusals(['t1', 't2']))]).toEqual([])
    expect(asked).toEqual([['bulk:t1', 'bulk:t2']])
    totals.set('bulk:t1', 8)
    totals.set('bulk:t2', 2)
    expect([...(await refusals(['t1', 't2']))]).toEqual([
      ['t1', 3],
      ['t2', 2],
    ])
    expect([...(await refusals(['t1', 't2']))]).toEqual([])
    // The total expired or Redis lost it: what is there now is new.
    totals.set('bulk:t1', 1)
    expect([...(await refusals(['t1']))]).toEqual([['t1', 1]])
    // t2 left the backlog in between: coming back, it starts from its total again.
    totals.set('bulk:t2', 9)
    expect([...(await refusals(['t1', 't2']))]).toEqual([])
  })
})
