import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import {
  type AcceptBucketSize,
  type AcceptBuckets,
  type AcceptPlan,
  acceptBucketSize,
  acceptBucketStep,
  bucketCost,
  checkPlanBeforeBody,
  takePlanAllowance,
  tightestLane,
} from './admit-by-plan'

const plan: AcceptPlan = {
  critical: { plan: { ratePerSec: 50, burst: 50 }, horizonMs: 10_000 },
  default: { plan: { ratePerSec: 50, burst: 50 }, horizonMs: 60_000 },
}

/** The pure step behind a map: the buckets as one web process alone would keep them. */
function memoryBuckets(now: () => number): AcceptBuckets & { tat: Map<string, number> } {
  const tat = new Map<string, number>()
  const step = (bucket: string, size: AcceptBucketSize, take: boolean) => {
    const result = acceptBucketStep(tat.get(bucket) ?? null, now(), size)
    if (take && result.allowed) tat.set(bucket, result.tatMs)
    return result.allowed
      ? { allowed: true as const }
      : { allowed: false as const, retryAfterMs: result.retryAfterMs }
  }
  return {
    tat,
    take: async (bucket, size) => step(bucket, size, true),
    peek: async (bucket, size) => step(bucket, size, false),
  }
}

async function refusal(work: Promise<void>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof AppError)) throw new Error('expected an AppError')
  return error
}

describe('the accept bucket', () => {
  it('holds what the plan sends within the horizon, plus its burst', () => {
    expect(acceptBucketSize({ ratePerSec: 50, burst: 50 }, 10_000)).toEqual({ ratePerSec: 50, capacity: 550 })
    expect(acceptBucketSize({ ratePerSec: 50, burst: 50 }, 60_000).capacity).toBe(3_050)
    expect(tightestLane(plan)).toBe('critical')
  })

  it('takes capacity mails at once, refuses the next with the wait for one more, and refills at the rate', () => {
    const size = { ratePerSec: 10, capacity: 3 }
    let tat: number | null = null
    for (let i = 0; i < 3; i++) {
      const step = acceptBucketStep(tat, 0, size)
      expect(step.allowed).toBe(true)
      tat = step.tatMs
    }
    const refused = acceptBucketStep(tat, 0, size)
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 100 })
    // A refusal spends nothing: a moment later exactly one more fits.
    expect(acceptBucketStep(refused.tatMs, 100, size).allowed).toBe(true)
    // Idle for the horizon, it is full again: nothing of the past is carried for ever.
    expect(acceptBucketStep(tat, 10_000, size)).toMatchObject({ allowed: true, tatMs: 10_100 })
  })
})

describe('a message’s cost in the accept bucket', () => {
  it('takes cost intervals at once and refuses what does not fit whole', () => {
    const size = { ratePerSec: 10, capacity: 10 }
    const first = acceptBucketStep(null, 0, size, 6)
    expect(first).toMatchObject({ allowed: true, tatMs: 600 })
    expect(acceptBucketStep(first.tatMs, 0, size, 5)).toMatchObject({ allowed: false, retryAfterMs: 100 })
    expect(acceptBucketStep(first.tatMs, 0, size, 4)).toMatchObject({ allowed: true, tatMs: 1000 })
  })

  it('never costs more than the bucket holds, nor less than one', () => {
    const size = { ratePerSec: 2, capacity: 22 }
    expect(bucketCost(40, size)).toBe(22)
    expect(bucketCost(4, size)).toBe(4)
    expect(bucketCost(undefined, size)).toBe(1)
    expect(bucketCost(0, size)).toBe(1)
    expect(bucketCost(Number.NaN, size)).toBe(1)
    // A 10 MB message on a small plan waits for a full bucket; it is never refused for ever.
    expect(acceptBucketStep(null, 0, size, bucketCost(40, size)).allowed).toBe(true)
  })
})

describe('admission by plan', () => {
  it('refuses a tenant past its critical horizon with limit "plan" and a Retry-After, before and after the body', async () => {
    const clock = { ms: 0 }
    const buckets = memoryBuckets(() => clock.ms)
    const deps = { plan, buckets }
    for (let i = 0; i < 550; i++) await takePlanAllowance({ tenantId: 'a', lane: 'critical' }, deps)
    const early = await refusal(checkPlanBeforeBody('a', deps))
    expect(early).toMatchObject({ code: 'rate_limited', limit: 'plan', retryAfterSeconds: 1 })
    const late = await refusal(takePlanAllowance({ tenantId: 'a', lane: 'critical' }, deps))
    expect(late.limit).toBe('plan')
    // Another tenant, and A's default lane, are untouched; bulk never counts.
    await checkPlanBeforeBody('b', deps)
    await takePlanAllowance({ tenantId: 'b', lane: 'critical' }, deps)
    await takePlanAllowance({ tenantId: 'a', lane: 'default' }, deps)
    await takePlanAllowance({ tenantId: 'a', lane: 'bulk' }, deps)
    // Once its plan has had time to send some, A is accepted again.
    clock.ms += 1_000
    await checkPlanBeforeBody('a', deps)
    await takePlanAllowance({ tenantId: 'a', lane: 'critical' }, deps)
  })
})
