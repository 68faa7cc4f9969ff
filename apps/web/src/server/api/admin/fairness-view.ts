import { type BucketSends, competedShares } from '@fairlane/fairness'

/** A tenant's bulk sends in the window, its plan and whether it still had mail waiting. */
export interface TenantWindow {
  tenantId: string
  name: string
  weight: number
  ratePerSec: number
  sent: number
  /** Pending + queued bulk mail right now. */
  backlog: number
}

export interface TenantShare extends TenantWindow {
  /** Its part of the bulk sends in the seconds when tenants competed (of the whole window if they never did), 0–1. */
  share: number
  /** Its weight over the weights of the tenants competing in the window, 0–1. */
  weightShare: number
  /**
   * The part of those sends a perfectly fair lane would have given it, 0–1: second by second, the
   * weighted max-min fair share of what the lane sent, each tenant capped by its plan's rate (a tenant
   * its own plan holds back leaves the rest to the others, and is not short-changed for it).
   */
  fairShare: number
}

export interface BulkShares {
  shares: TenantShare[]
  /** Jain's index over `share ÷ fairShare`; null unless at least two tenants competed. */
  jainIndex: number | null
  /** Seconds of the window in which at least two tenants competed: what the index judges. */
  competedSeconds: number
}

/**
 * Each competing tenant's share of bulk capacity next to its weight's share and its fair share, and
 * Jain's fairness index (`competedShares`, the same judgement as the fairness benchmark): 1 when every
 * tenant got exactly what weighted max-min fairness under the plans gives it, lower as shares stray
 * from that. Only the buckets where two or more tenants competed count: idle time is no capacity.
 * Competing means it sent in the window or still has bulk mail waiting (a tenant with mail waiting
 * that sent nothing is starved, and counts as 0 in every bucket someone else sent in).
 */
export function bulkShares(
  tenants: TenantWindow[],
  buckets: readonly BucketSends[],
  bucketSeconds: number,
): BulkShares {
  const competing = tenants.filter((tenant) => tenant.sent > 0 || tenant.backlog > 0)
  const totalWeight = competing.reduce((sum, tenant) => sum + tenant.weight, 0)
  const judged = competedShares({
    buckets,
    plans: competing,
    bucketSeconds,
    waiting: new Set(competing.filter((tenant) => tenant.sent === 0).map((tenant) => tenant.tenantId)),
  })
  const competed = new Map(judged.shares.map((share) => [share.tenantId, share]))
  const competedSent = judged.shares.reduce((sum, share) => sum + share.sent, 0)
  const windowSent = competing.reduce((sum, tenant) => sum + tenant.sent, 0)
  const shares = competing
    .map((tenant) => {
      const weightShare = totalWeight === 0 ? 0 : tenant.weight / totalWeight
      if (judged.competedSeconds === 0) {
        const share = windowSent === 0 ? 0 : tenant.sent / windowSent
        return { ...tenant, share, weightShare, fairShare: share }
      }
      const mine = competed.get(tenant.tenantId)
      return {
        ...tenant,
        share: competedSent === 0 ? 0 : (mine?.sent ?? 0) / competedSent,
        weightShare,
        fairShare: competedSent === 0 ? 0 : (mine?.fair ?? 0) / competedSent,
      }
    })
    .sort((a, b) => b.sent - a.sent || a.name.localeCompare(b.name))
  return { shares, jainIndex: judged.jainIndex, competedSeconds: judged.competedSeconds }
}

/** Series key for the tenants folded together beyond the chart's cap. */
export const OTHERS = 'others'

/**
 * The stacked chart's rows: sends per second of the `topN` busiest tenants, the rest summed as
 * `others`, one row per bucket from `first` to `last` (gaps as 0), so the chart's cardinality stays
 * bounded however many tenants send.
 */
export function stackedRates(input: {
  buckets: { t: number; tenantId: string; sent: number }[]
  first: number
  last: number
  bucketSeconds: number
  topN: number
}): { keys: string[]; points: Array<{ t: number } & Record<string, number>> } {
  const totals = new Map<string, number>()
  for (const bucket of input.buckets) {
    totals.set(bucket.tenantId, (totals.get(bucket.tenantId) ?? 0) + bucket.sent)
  }
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const top = ranked.slice(0, input.topN).map(([tenantId]) => tenantId)
  const keys = ranked.length > input.topN ? [...top, OTHERS] : top
  const topSet = new Set(top)
  const points: Array<{ t: number } & Record<string, number>> = []
  for (let t = input.first; t <= input.last; t += input.bucketSeconds) {
    const point: { t: number } & Record<string, number> = { t }
    for (const key of keys) point[key] = 0
    points.push(point)
  }
  for (const bucket of input.buckets) {
    const point = points[(bucket.t - input.first) / input.bucketSeconds]
    if (!point) continue
    const key = topSet.has(bucket.tenantId) ? bucket.tenantId : OTHERS
    point[key] = (point[key] ?? 0) + bucket.sent / input.bucketSeconds
  }
  return { keys, points }
}
