import { type BucketSends, competedShares, rateViolations } from '@fairlane/fairness'
import { percentile, round } from '../stats'

export interface Delivery {
  to: string
  at: number
}

export interface TenantSpec {
  name: string
  domain: string
  ratePerSec: number
  burst: number
  weight: number
}

/** The sink's deliveries since `since` (epoch ms), without bodies. */
export async function readSink(inboxUrl: string, since: number): Promise<Delivery[]> {
  const response = await fetch(`${inboxUrl}/messages?since=${since}&fields=to,receivedAt`)
  if (!response.ok) throw new Error(`sink answered ${response.status}`)
  const messages = (await response.json()) as { to: string; receivedAt: string }[]
  return messages.map((message) => ({ to: message.to, at: Date.parse(message.receivedAt) }))
}

export function byDomain(deliveries: Delivery[], domain: string): number[] {
  const suffix = `@${domain}`
  return deliveries.filter((delivery) => delivery.to.endsWith(suffix)).map((delivery) => delivery.at)
}

/** Sends above rate + burst in any 1 s window, summed over tenants (see `rateViolations`). */
export function totalViolations(deliveries: Delivery[], tenants: TenantSpec[]): number {
  return tenants.reduce((sum, tenant) => sum + rateViolations(byDomain(deliveries, tenant.domain), tenant), 0)
}

/** Deliveries as one-second buckets of sends per tenant (`tenantId`: the spec's name). */
export function sendBuckets(deliveries: Delivery[], tenants: TenantSpec[]): BucketSends[] {
  const buckets = new Map<string, BucketSends>()
  for (const tenant of tenants) {
    for (const at of byDomain(deliveries, tenant.domain)) {
      const t = Math.floor(at / 1000)
      const key = `${tenant.name}\n${t}`
      const bucket = buckets.get(key) ?? { tenantId: tenant.name, t, sent: 0 }
      bucket.sent += 1
      buckets.set(key, bucket)
    }
  }
  return [...buckets.values()]
}

/**
 * Each tenant's part of what was delivered, and Jain's index of sends against weighted max-min fair
 * shares under the plans, second by second where tenants competed (`competedShares`: the same
 * judgement the admin console's fairness page shows). Null when no two tenants ever competed.
 */
export function weightedShares(
  deliveries: Delivery[],
  tenants: TenantSpec[],
): { jainIndex: number | null; shares: Record<string, number> } {
  const counts = tenants.map((tenant) => byDomain(deliveries, tenant.domain).length)
  const total = counts.reduce((sum, count) => sum + count, 0) || 1
  const judged = competedShares({
    buckets: sendBuckets(deliveries, tenants),
    plans: tenants.map((tenant) => ({
      tenantId: tenant.name,
      weight: tenant.weight,
      ratePerSec: tenant.ratePerSec,
    })),
    bucketSeconds: 1,
  })
  return {
    jainIndex: judged.jainIndex === null ? null : round(judged.jainIndex, 3),
    shares: Object.fromEntries(
      tenants.map((tenant, index) => [tenant.name, round((counts[index] ?? 0) / total, 3)]),
    ),
  }
}

export function latencySummary(samples: number[]): { p50: number | null; p99: number | null } {
  if (samples.length === 0) return { p50: null, p99: null }
  return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)) }
}
