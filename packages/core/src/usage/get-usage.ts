import type { Quota } from '../accept/tenant-plans'
import { validationFailed } from '../errors/app-error'
import type { UsageCounts, UsageStore } from './ports'

/** The longest range one call may ask for (about a quarter): the report stays one cheap index range. */
export const MAX_USAGE_DAYS = 92
/** Without `from`/`to`: the last 30 days, today included. */
export const DEFAULT_USAGE_DAYS = 30

export interface UsageDay extends UsageCounts {
  date: string
  lanes: Record<string, UsageCounts>
}

export interface UsageReport {
  days: UsageDay[]
  quota?: { daily?: number; monthly?: number; usedToday: number; usedThisMonth: number }
}

export interface GetUsageInput {
  tenantId: string
  /** As given in the query string; null when absent. */
  from: string | null
  to: string | null
  /** The tenant's quotas (null parts: none); the report shows `quota` only when one is set. */
  quota: Quota
  now: Date
}

/**
 * `GET /api/v1/usage`: per UTC day, what the tenant accepted and what became of it, in total and by
 * lane, every day of the range present (zeros included) so a chart needs no gap filling; with the
 * tenant's quotas and its use of them when it has any.
 */
export async function getUsage(input: GetUsageInput, deps: { store: UsageStore }): Promise<UsageReport> {
  const { from, to } = usageRange(input)
  const query = { tenantId: input.tenantId, from, to }
  const withQuota = input.quota.daily !== null || input.quota.monthly !== null
  const [accepted, outcomes, used] = await Promise.all([
    deps.store.acceptedDays(query),
    deps.store.outcomeDays(query),
    withQuota ? deps.store.quotaUsage({ tenantId: input.tenantId, now: input.now }) : null,
  ])
  const days = new Map(
    datesBetween(from, to).map((date) => [date, { date, ...zero(), lanes: {} } as UsageDay]),
  )
  for (const row of [...accepted, ...outcomes]) {
    const day = days.get(row.date)
    if (!day) continue
    day.lanes[row.lane] ??= zero()
    const lane = day.lanes[row.lane] as UsageCounts
    for (const key of COUNTS) {
      const value = row[key] ?? 0
      lane[key] += value
      day[key] += value
    }
  }
  return {
    days: [...days.values()],
    ...(withQuota && used
      ? {
          quota: {
            ...(input.quota.daily !== null ? { daily: input.quota.daily } : {}),
            ...(input.quota.monthly !== null ? { monthly: input.quota.monthly } : {}),
            usedToday: used.usedToday,
            usedThisMonth: used.usedThisMonth,
          },
        }
      : {}),
  }
}

const COUNTS = ['accepted', 'sent', 'bounced', 'complained', 'suppressed'] as const

function zero(): UsageCounts {
  return { accepted: 0, sent: 0, bounced: 0, complained: 0, suppressed: 0 }
}

const DAY_MS = 86_400_000

/**
 * The range asked for: `YYYY-MM-DD` dates that exist, `from` ≤ `to`, at most MAX_USAGE_DAYS days; a
 * missing end is filled from the other (or today) so the range is DEFAULT_USAGE_DAYS long. 400 naming
 * the field otherwise.
 */
export function usageRange(input: { from: string | null; to: string | null; now: Date }): {
  from: string
  to: string
} {
  const toDay = input.to === null ? null : parseDay(input.to, 'to')
  const fromDay = input.from === null ? null : parseDay(input.from, 'from')
  const today = Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth(), input.now.getUTCDate())
  const span = (DEFAULT_USAGE_DAYS - 1) * DAY_MS
  const to = toDay ?? (fromDay === null ? today : Math.min(today, fromDay + span))
  const from = fromDay ?? to - span
  if (from > to) throw validationFailed([{ path: 'from', message: 'must be on or before `to`' }])
  if ((to - from) / DAY_MS + 1 > MAX_USAGE_DAYS) {
    throw validationFailed([{ path: 'to', message: `the range may cover at most ${MAX_USAGE_DAYS} days` }])
  }
  return { from: dayString(from), to: dayString(Math.max(from, to)) }
}

function parseDay(value: string, path: 'from' | 'to'): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN
  if (!match || Number.isNaN(ms) || dayString(ms) !== value) {
    throw validationFailed([{ path, message: 'must be a date as YYYY-MM-DD' }])
  }
  return ms
}

function dayString(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

function datesBetween(from: string, to: string): string[] {
  const dates: string[] = []
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += DAY_MS) {
    dates.push(dayString(ms))
  }
  return dates
}
