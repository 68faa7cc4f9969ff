import type { Lane } from '@fairlane/core'
import type { Admission, BatchAdmission } from '@fairlane/core/delivery'
import {
  type BucketPlan,
  deferralDelayMs,
  enforcedPlan,
  type LaneAdmission,
  laneParkKey,
  type TokenBuckets,
} from '@fairlane/fairness'
import type { DeliverySignals } from '../signals'
import type { GatePlan, PlanCache } from './plan-cache'

export interface TenantGate {
  /**
   * Takes one token from the tenant's bucket for this lane, or says how long to wait for one. With the
   * job's id, on a transactional lane, the job also holds its lane slot again (the same one: a job that
   * was deferred and came back is not counted twice).
   */
  admit(tenantId: string, jobId?: string): Promise<Admission>
  /**
   * Up to `count` tokens in one take (a bulk batch): how many were granted and, when fewer, how long
   * until the rest may ask again (enough for all of them, or a full burst, whichever is fewer).
   */
  admitUpTo?(tenantId: string, count: number): Promise<BatchAdmission>
  /** The job leaves the lane's waiting/running part (done, failed, deferred): its slot is given back. */
  leave(tenantId: string, jobId: string): Promise<void>
  /** A batch job leaves the lane: its messages' slots (`laneSlots`) are given back in one call. */
  leaveMany?(tenantId: string, slotIds: readonly string[]): Promise<void>
}

/** Lane slots of the transactional lanes (see `relay/lane-parking.ts`). */
export interface GateSlots {
  admission: LaneAdmission
  /** TRANSACTIONAL_SLOT_TTL_MS */
  ttlMs: number
  /** A slot given back is announced here: the relay may publish more of the tenant now. */
  signals?: Pick<DeliverySignals, 'slotFreed'>
}

/**
 * How long a paused tenant's bulk job waits before it asks again: the jobs handed to the lane before
 * the reputation guardrail's pause hold their messages (given back unsent, no attempt spent) and come
 * back this often until an admin resumes the tenant.
 */
export const PAUSED_RECHECK_MS = 30_000

/**
 * The per-tenant token bucket in front of a lane. Bulk uses the tenant's plan (rate, burst), read
 * through the plan cache so a plan change is obeyed within its refresh; critical and default each
 * have their own bucket per tenant with the platform's transactional plan, so nothing a tenant does
 * in bulk can take a login code's token. A tenant that no longer exists gets no tokens to wait for:
 * its job is let through and the send itself finds nothing to do.
 */
export function createTenantGate(options: {
  lane: Lane
  buckets: TokenBuckets
  planFor: (tenantId: string) => Promise<GatePlan | undefined>
  /** Only for critical and default; bulk is paced by the pacer. */
  slots?: GateSlots
  random?: () => number
}): TenantGate {
  const bucketOf = (tenantId: string) => tenantBucket(options.lane, tenantId)
  const { slots } = options
  return {
    async admit(tenantId, jobId) {
      const holding =
        slots && jobId
          ? slots.admission.hold(laneParkKey(options.lane, tenantId), jobId, slots.ttlMs)
          : undefined
      const plan = await options.planFor(tenantId)
      await holding
      if (!plan) return { ok: true }
      if (plan.bulkPaused) return { ok: false, delayMs: PAUSED_RECHECK_MS }
      // Less a reserve of the burst for the hand-off's jitter, so the plan holds at the receiving end.
      const taken = await options.buckets.take(bucketOf(tenantId), enforcedPlan(plan))
      if (taken.ok) return taken
      return {
        ok: false,
        delayMs: deferralDelayMs({
          retryAfterMs: taken.retryAfterMs,
          position: taken.position,
          ratePerSec: plan.ratePerSec,
          ...(options.random ? { random: options.random } : {}),
        }),
      }
    },
    async admitUpTo(tenantId, count) {
      const plan = await options.planFor(tenantId)
      if (!plan) return { granted: count, delayMs: 0 }
      if (plan.bulkPaused) return { granted: 0, delayMs: PAUSED_RECHECK_MS }
      const enforced = enforcedPlan(plan)
      const taken = await options.buckets.takeUpTo(bucketOf(tenantId), enforced, count)
      if (taken.all) return { granted: taken.granted, delayMs: 0 }
      // The rest wakes when the bucket holds as many of its tokens as it can: one interval more per
      // further token, so a batch's rest is not woken for one token at a time.
      const more = Math.min(count - taken.granted, enforced.burst) - 1
      return {
        granted: taken.granted,
        delayMs:
          deferralDelayMs({
            retryAfterMs: taken.retryAfterMs,
            position: taken.position,
            ratePerSec: plan.ratePerSec,
            ...(options.random ? { random: options.random } : {}),
          }) + Math.ceil((more * 1000) / plan.ratePerSec),
      }
    },
    async leave(tenantId, jobId) {
      if (!slots) return
      const key = laneParkKey(options.lane, tenantId)
      const { removed } = await slots.admission.release(key, jobId)
      if (removed) slots.signals?.slotFreed.emit(key)
    },
    async leaveMany(tenantId, slotIds) {
      if (!slots || slotIds.length === 0) return
      const key = laneParkKey(options.lane, tenantId)
      const { removed } = await slots.admission.releaseMany(key, slotIds)
      if (removed > 0) slots.signals?.slotFreed.emit(key)
    },
  }
}

/** The name of a tenant's bucket for a lane in `TokenBuckets`. */
export function tenantBucket(lane: Lane, tenantId: string): string {
  return `${lane}:${tenantId}`
}

/**
 * For the pacer: how many of each tenant's bulk jobs its bucket refused since the last call. The first
 * call for a tenant (or after it left the backlog) only takes note of its total; a total that went
 * down (expired, or Redis lost its data) counts from zero.
 */
export function createRefusalTracker(
  buckets: Pick<TokenBuckets, 'refusalTotals'>,
): (tenantIds: string[]) => Promise<Map<string, number>> {
  let seen = new Map<string, number>()
  return async (tenantIds) => {
    const totals = await buckets.refusalTotals(tenantIds.map((tenantId) => tenantBucket('bulk', tenantId)))
    const fresh = new Map<string, number>()
    const next = new Map<string, number>()
    tenantIds.forEach((tenantId, index) => {
      const total = totals[index] ?? 0
      const before = seen.get(tenantId)
      next.set(tenantId, total)
      if (before === undefined) return
      const refused = total >= before ? total - before : total
      if (refused > 0) fresh.set(tenantId, refused)
    })
    // Only the tenants asked about this time are remembered, so the map stays as small as the backlog.
    seen = next
    return fresh
  }
}

/**
 * Bulk reads each tenant's bulk plan; the transactional lanes the tenant's own transactional plan
 * (`transactionalPlans`, the platform's filling what it leaves open) or, without that cache, the
 * platform-wide one.
 */
export function planSourceFor(
  lane: Lane,
  sources: { plans: PlanCache; transactional: BucketPlan; transactionalPlans?: PlanCache },
): (tenantId: string) => Promise<GatePlan | undefined> {
  if (lane === 'bulk') return (tenantId) => sources.plans.get(tenantId)
  const own = sources.transactionalPlans
  if (!own) return async () => sources.transactional
  return async (tenantId) => (await own.get(tenantId)) ?? sources.transactional
}
