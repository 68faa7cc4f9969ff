import { jainIndex, maxMinFairShares } from './fairness-metrics'

/** One tenant's sends in one time bucket (`t`: the bucket's start, in seconds). */
export interface BucketSends {
  tenantId: string
  t: number
  sent: number
}

export interface TenantPlanShape {
  tenantId: string
  weight: number
  ratePerSec: number
}

export interface CompetedShare {
  tenantId: string
  /** Its sends in the buckets where tenants competed. */
  sent: number
  /** What weighted max-min fairness under the plans gives it in those buckets. */
  fair: number
}

export interface CompetedShares {
  shares: CompetedShare[]
  /** Seconds (buckets × their length) in which at least two tenants competed. */
  competedSeconds: number
  /**
   * Jain's index over each competing tenant's `sent ÷ fair`: 1 when every tenant got exactly its
   * weighted max-min share; null when no two tenants ever competed (there was nothing to share).
   */
  jainIndex: number | null
}

/**
 * How fairly a lane was shared, judged only where there was something to share: bucket by bucket,
 * the tenants that sent in it (and those in `waiting`, with mail waiting and nothing sent: starved)
 * competed for what the lane sent in it; each is owed its weighted max-min fair share of that, capped
 * by its plan's rate. Idle time is no capacity (taking the window's total ÷ its length as capacity
 * made two tenants each at their own plan's full rate look unfair), and a bucket with one sender is
 * no competition. The benchmark and the admin console's fairness page both judge with this.
 */
export function competedShares(input: {
  buckets: readonly BucketSends[]
  plans: readonly TenantPlanShape[]
  bucketSeconds: number
  waiting?: ReadonlySet<string>
}): CompetedShares {
  const plans = new Map(input.plans.map((plan) => [plan.tenantId, plan]))
  const byBucket = new Map<number, Map<string, number>>()
  for (const bucket of input.buckets) {
    if (bucket.sent <= 0 || !plans.has(bucket.tenantId)) continue
    const sends = byBucket.get(bucket.t) ?? new Map<string, number>()
    sends.set(bucket.tenantId, (sends.get(bucket.tenantId) ?? 0) + bucket.sent)
    byBucket.set(bucket.t, sends)
  }
  const totals = new Map<string, CompetedShare>()
  let competedBuckets = 0
  for (const sends of byBucket.values()) {
    const competing = new Set(sends.keys())
    for (const tenantId of input.waiting ?? []) if (plans.has(tenantId)) competing.add(tenantId)
    if (competing.size < 2) continue
    competedBuckets += 1
    const tenants = [...competing].map((tenantId) => plans.get(tenantId) as TenantPlanShape)
    const sentInBucket = [...sends.values()].reduce((sum, sent) => sum + sent, 0)
    const fairRates = maxMinFairShares(sentInBucket / input.bucketSeconds, tenants)
    tenants.forEach((tenant, index) => {
      const total = totals.get(tenant.tenantId) ?? { tenantId: tenant.tenantId, sent: 0, fair: 0 }
      total.sent += sends.get(tenant.tenantId) ?? 0
      total.fair += (fairRates[index] ?? 0) * input.bucketSeconds
      totals.set(tenant.tenantId, total)
    })
  }
  const shares = [...totals.values()]
  return {
    shares,
    competedSeconds: competedBuckets * input.bucketSeconds,
    jainIndex:
      competedBuckets === 0
        ? null
        : jainIndex(shares.map((share) => (share.fair > 0 ? share.sent / share.fair : 0))),
  }
}
