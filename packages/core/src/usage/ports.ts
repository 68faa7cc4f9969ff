import type { QuotaUsage } from '../accept/admit-by-quota'

/** What the usage report reads (PostgreSQL via `@fairlane/db/queries/usage`). Days are `YYYY-MM-DD`, UTC. */

export interface UsageOutcomes {
  sent: number
  bounced: number
  complained: number
  suppressed: number
}

export interface UsageCounts extends UsageOutcomes {
  accepted: number
}

/** One day and lane of a tenant; days and lanes with nothing are absent. */
export interface UsageRow extends Partial<UsageCounts> {
  date: string
  lane: string
}

export interface UsageStore {
  /** Accepted per day and lane (`tenant_usage_days`), `from` to `to` inclusive. */
  acceptedDays(query: { tenantId: string; from: string; to: string }): Promise<UsageRow[]>
  /** Outcomes per day and lane of the mail accepted that day, `from` to `to` inclusive. */
  outcomeDays(query: { tenantId: string; from: string; to: string }): Promise<UsageRow[]>
  /** Accepted in `now`'s UTC day and calendar month. */
  quotaUsage(query: { tenantId: string; now: Date }): Promise<QuotaUsage>
}
