/**
 * A tenant's demand at one provider and egress address, as the receiver gate and the pacer see it
 * (`ReceiverDemand` of `@fairlane/fairness` keeps them in Redis).
 */
export interface DemandEntry {
  tenantId: string
  weight: number
  /** Messages a minute it asked lately, or Infinity while it has mail waiting. */
  demandPerMinute: number
}

/**
 * Each active tenant's weighted max-min share of `perMinute` (water-filling: a tenant asking for less
 * than its weight's part gets what it asks; the rest is split by weight among those wanting more).
 */
export function demandShares(perMinute: number, entries: readonly DemandEntry[]): Map<string, number> {
  const shares = new Map<string, number>()
  const order = [...entries].sort(
    (a, b) => perWeight(a) - perWeight(b) || a.tenantId.localeCompare(b.tenantId),
  )
  let left = Math.max(0, perMinute)
  let weights = entries.reduce((sum, entry) => sum + entry.weight, 0)
  for (const entry of order) {
    const share = Math.min(entry.demandPerMinute, (left * entry.weight) / weights)
    shares.set(entry.tenantId, share)
    left -= share
    weights -= entry.weight
  }
  return shares
}

/** Demand per unit of weight; the waiting (Infinity) sort last, together. */
function perWeight(entry: DemandEntry): number {
  return Number.isFinite(entry.demandPerMinute) ? entry.demandPerMinute / entry.weight : Number.MAX_VALUE
}
