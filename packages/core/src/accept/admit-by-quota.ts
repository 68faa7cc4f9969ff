import { AppError } from '../errors/app-error'
import type { Quota } from './tenant-plans'

/**
 * Quotas count messages accepted, not sent: a tenant learns at accept time, with a 429 naming
 * `quota` and when it opens again, rather than finding mail stuck later. Days and months are UTC, so
 * every process and the usage page agree on where a day ends whatever the server's zone.
 *
 * Exact under concurrency: the store reads the tenant's usage under a per-tenant lock held until the
 * accept's transaction ends, and the same transaction adds the new message to `tenant_usage_days`;
 * two accepts of one tenant can therefore never both see the last free unit.
 */

/** What the tenant has accepted in the current UTC day and calendar month, before this message. */
export interface QuotaUsage {
  usedToday: number
  usedThisMonth: number
}

export type QuotaDecision = { allowed: true } | { allowed: false; which: 'daily' | 'monthly'; resetAt: Date }

/** The UTC day `now` falls in, as `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10)
}

/** The first day of `now`'s UTC month, as `YYYY-MM-DD`. */
export function utcMonthStart(now: Date): string {
  return `${now.toISOString().slice(0, 7)}-01`
}

export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
}

export function nextUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
}

/**
 * Whether `count` more messages fit. When both quotas are full the later reset is the one that
 * matters (the monthly): retrying at the daily reset would only be refused again.
 */
export function decideQuota(quota: Quota, usage: QuotaUsage, now: Date, count = 1): QuotaDecision {
  const monthFull = quota.monthly !== null && usage.usedThisMonth + count > quota.monthly
  if (monthFull) return { allowed: false, which: 'monthly', resetAt: nextUtcMonth(now) }
  const dayFull = quota.daily !== null && usage.usedToday + count > quota.daily
  if (dayFull) return { allowed: false, which: 'daily', resetAt: nextUtcDay(now) }
  return { allowed: true }
}

/** The 429 for a refused decision: `Retry-After` until the reset, `details.limit: "quota"`, `resetAt`. */
export function quotaRefusal(decision: Extract<QuotaDecision, { allowed: false }>, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000))
  return new AppError(
    'rate_limited',
    `This tenant has used its ${decision.which} quota of messages; it opens again at ${decision.resetAt.toISOString()}`,
    { retryAfterSeconds: seconds, limit: 'quota', resetAt: decision.resetAt },
  )
}

/** Throws the quota's 429 when `count` more messages do not fit. */
export function admitByQuota(input: { quota: Quota; usage: QuotaUsage; now: Date; count?: number }): void {
  const decision = decideQuota(input.quota, input.usage, input.now, input.count ?? 1)
  if (!decision.allowed) throw quotaRefusal(decision, input.now)
}
