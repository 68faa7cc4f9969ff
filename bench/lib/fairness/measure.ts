import { jainIndex, rateViolations } from '@fairlane/fairness'
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

/** Each tenant's share of what was delivered, divided by its weight, and Jain's index over those. */
export function weightedShares(
  deliveries: Delivery[],
  tenants: TenantSpec[],
): { jainIndex: number; shares: Record<string, number> } {
  const counts = tenants.map((tenant) => byDomain(deliveries, tenant.domain).length)
  const total = counts.reduce((sum, count) => sum + count, 0) || 1
  const totalWeight = tenants.reduce((sum, tenant) => sum + tenant.weight, 0)
  const normalised = counts.map(
    (count, index) => count / total / ((tenants[index]?.weight ?? 1) / totalWeight),
  )
  return {
    jainIndex: round(jainIndex(normalised), 3),
    shares: Object.fromEntries(
      tenants.map((tenant, index) => [tenant.name, round((counts[index] ?? 0) / total, 3)]),
    ),
  }
}

export function latencySummary(samples: number[]): { p50: number | null; p99: number | null } {
  if (samples.length === 0) return { p50: null, p99: null }
  return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)) }
}
