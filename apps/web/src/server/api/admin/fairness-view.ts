import { jainIndex, maxMinFairShares } from '@fairlane/fairness'

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
  /** Its part of all bulk sends in the window, 0–1. */
  share: number
  /** Its weight over the weights of the tenants competing in the window, 0–1. */
  weightShare: number
  /**
   * The part of the window's bulk sends a perfectly fair lane would have given it, 0–1: the weighted
   * max-min fair share of what the lane sent, each tenant capped by its plan's rate (a tenant its own
   * plan holds back leaves the rest to the others, and is not short-changed for it).
   */
  fairShare: number
}

/**
 * Each competing tenant's share of bulk capacity next to its weight's share and its fair share, and
 * Jain's fairness index over `share ÷ fairShare`: 1 when every tenant got exactly what weighted max-min
 * fairness under the plans gives it (its weight's part when all are backlogged past their plans),
 * lower as shares stray from that. Competing means it sent in the window or still has bulk mail
 * waiting (a starved tenant counts, as 0). Null with no competitor or nothing sent.
 */
export function bulkShares(
  tenants: TenantWindow[],
  windowSeconds: number,
): { shares: TenantShare[]; jainIndex: number | null } {
  const competing = tenants.filter((tenant) => tenant.sent > 0 || tenant.backlog > 0)
  const totalSent = competing.reduce((sum, tenant) => sum + tenant.sent, 0)
  const totalWeight = competing.reduce((sum, tenant) => sum + tenant.weight, 0)
  const fair = maxMinFairShares(totalSent / windowSeconds, competing)
  const shares = competing
    .map((tenant, index) => ({
      ...tenant,
      share: totalSent === 0 ? 0 : tenant.sent / totalSent,
      weightShare: totalWeight === 0 ? 0 : tenant.weight / totalWeight,
      fairShare: totalSent === 0 ? 0 : ((fair[index] ?? 0) * windowSeconds) / totalSent,
    }))
    .sort((a, b) => b.sent - a.sent || a.name.localeCompare(b.name))
  if (shares.length === 0 || totalSent === 0) return { shares, jainIndex: null }
  return {
    shares,
    jainIndex: jainIndex(
      shares.map((tenant) => (tenant.fairShare > 0 ? tenant.share / tenant.fairShare : 0)),
    ),
  }
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
