/**
 * Measures shared by the fairness benchmark, the tests and the admin views, so that all three judge
 * a run by the same definitions. Timestamps are milliseconds in any order; they are sorted here.
 *
 * Windows are closed, `[e − windowMs, e]`: two sends exactly `windowMs` apart count as one window.
 * That is the stricter reading (it never counts fewer events than a half-open window), and it is the
 * one the GCRA bound holds for: at most `burst + ratePerSec × windowMs / 1000` sends in any such window.
 */

/**
 * Jain's fairness index, (Σx)² / (n·Σx²): 1 when every value is equal, 1/n when one value takes
 * everything. An empty or all-zero input is perfectly (if vacuously) fair: 1.
 */
export function jainIndex(values: readonly number[]): number {
  let sum = 0
  let sumOfSquares = 0
  for (const value of values) {
    sum += value
    sumOfSquares += value * value
  }
  if (values.length === 0 || sumOfSquares === 0) return 1
  return (sum * sum) / (values.length * sumOfSquares)
}

/** The largest number of events inside any closed window of `windowMs`. O(n log n) for the sort. */
export function maxInWindow(timestampsMs: readonly number[], windowMs: number): number {
  let max = 0
  for (const count of countsOfWindowsEndingAtEachEvent(timestampsMs, windowMs)) max = Math.max(max, count)
  return max
}

/**
 * How many events `e` end a window `[e − windowMs, e]` holding more than the bucket allows,
 * `burst + ratePerSec × windowMs / 1000` (for the default 1 s window: `ratePerSec + burst`).
 * Counting events rather than "was the limit ever passed" tells a single stray send apart from a
 * sustained overrun. Zero is the guarantee.
 */
export function rateViolations(
  timestampsMs: readonly number[],
  limit: { ratePerSec: number; burst: number },
  windowMs = 1000,
): number {
  const allowed = limit.burst + (limit.ratePerSec * windowMs) / 1000
  let violations = 0
  for (const count of countsOfWindowsEndingAtEachEvent(timestampsMs, windowMs)) {
    if (count > allowed) violations++
  }
  return violations
}

/**
 * For each event (in time order), the number of events in `[t − windowMs, t]`, including every event
 * at the same instant `t` (so simultaneous events all see the full count). Two pointers after a sort.
 */
function countsOfWindowsEndingAtEachEvent(timestampsMs: readonly number[], windowMs: number): number[] {
  const sorted = [...timestampsMs].sort((a, b) => a - b)
  const counts: number[] = []
  let first = 0
  let pastLast = 0
  for (const end of sorted) {
    while (pastLast < sorted.length && (sorted[pastLast] as number) <= end) pastLast++
    while ((sorted[first] as number) < end - windowMs) first++
    counts.push(pastLast - first)
  }
  return counts
}

/**
 * Weighted max-min fair shares of `capacity` (sends per second) among backlogged tenants capped by
 * their plans: water-filling, each tenant gets capacity in proportion to its weight until its plan
 * caps it, and what it leaves goes to the rest. What a perfectly fair platform would give each one.
 */
export function maxMinFairShares(
  capacity: number,
  tenants: ReadonlyArray<{ ratePerSec: number; weight: number }>,
): number[] {
  const shares = tenants.map(() => 0)
  // Lowest plan per unit of weight first: once one tenant's plan does not cap it, no later one's does.
  const order = tenants.map((_, index) => index)
  const perWeight = (index: number) => (tenants[index]?.ratePerSec ?? 0) / (tenants[index]?.weight ?? 1)
  order.sort((a, b) => perWeight(a) - perWeight(b))
  let left = Math.max(0, capacity)
  let weights = tenants.reduce((sum, tenant) => sum + tenant.weight, 0)
  for (const index of order) {
    const { ratePerSec, weight } = tenants[index] as { ratePerSec: number; weight: number }
    const share = Math.min(ratePerSec, (left * weight) / weights)
    shares[index] = share
    left -= share
    weights -= weight
  }
  return shares
}
