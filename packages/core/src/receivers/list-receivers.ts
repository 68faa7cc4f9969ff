import type { ListReceiversDeps, ReceiverWindowCounts, StoredReceiverState } from './ports'

/** A tenant a provider throttled by name (its DKIM or envelope domain): slowed there alone. */
export interface SlowedTenantView {
  id: string
  /** Absent when the names are not asked for, or the tenant is gone. */
  name?: string
  ratePerMinute: number
  pausedUntil?: string
}

/**
 * One provider at one egress address, as `GET /api/admin/receivers` answers it (CONTRACT.md,
 * "Receivers"), with the console's extensions after `tenants`.
 */
export interface ReceiverView {
  provider: string
  egress: string
  /** Messages a minute allowed now: 0 while paused, the ceiling when never throttled. */
  ratePerMinute: number
  ceilingPerMinute?: number
  pausedUntil?: string
  attempts5m: number
  throttled5m: number
  deferred5m: number
  /** Tenants with attempts in the last `RECEIVER_SHARE_WINDOW_MINUTES`, their share of them, the most first. */
  tenants: { id: string; share: number; name?: string }[]
  lastThrottledPerMinute?: number
  lastReply?: string
  lastThrottledAt?: string
  attempts60m: number
  accepted60m: number
  throttled60m: number
  deferred60m: number
  slowedTenants: SlowedTenantView[]
}

/** The tenants' shares are over the short window: who is using the provider now. */
export const RECEIVER_SHARE_WINDOW_MINUTES = 5
const LONG_WINDOW_MINUTES = 60

/**
 * Every (provider, egress address) Fairlane knows of: those with a state (a provider that throttled
 * there once) and those with counts in the last hour. The rate is computed at read time from the
 * stored state (the controller's climb back is not stored), so a provider paused a minute ago shows
 * its pause now and its rising rate after it without anything being written.
 */
export async function listReceivers(deps: ListReceiversDeps): Promise<ReceiverView[]> {
  const [states, recent, hour] = await Promise.all([
    deps.states.list(),
    deps.counters.read({ windowMinutes: RECEIVER_SHARE_WINDOW_MINUTES }),
    deps.counters.read({ windowMinutes: LONG_WINDOW_MINUTES }),
  ])
  const nowMs = deps.clock.now().getTime()
  const pairKey = (provider: string, egress: string) => JSON.stringify([provider, egress])
  const pairs = new Map<string, { provider: string; egress: string }>()
  for (const entry of [...states, ...recent, ...hour]) {
    pairs.set(pairKey(entry.provider, entry.egress), { provider: entry.provider, egress: entry.egress })
  }
  const byPair = <T extends { provider: string; egress: string }>(rows: T[]) =>
    new Map(rows.map((row) => [pairKey(row.provider, row.egress), row]))
  const recentOf = byPair(recent)
  const hourOf = byPair(hour)
  const everyoneOf = byPair(states.filter((row) => row.scope === ''))
  const slowedOf = new Map<string, StoredReceiverState[]>()
  for (const row of states.filter((state) => state.scope !== '')) {
    const key = pairKey(row.provider, row.egress)
    slowedOf.set(key, [...(slowedOf.get(key) ?? []), row])
  }

  const named = await namesOf(deps, [
    ...recent.flatMap((counts) => counts.tenants.map((tenant) => tenant.tenantId)),
    ...states.filter((row) => row.scope !== '').map((row) => row.scope),
  ])
  const withName = <T extends { id: string }>(tenant: T) => {
    const name = named.get(tenant.id)
    return name === undefined ? tenant : { ...tenant, name }
  }

  return [...pairs.entries()]
    .sort(([, a], [, b]) => a.provider.localeCompare(b.provider) || a.egress.localeCompare(b.egress))
    .map(([key, { provider, egress }]) => {
      const stored = everyoneOf.get(key)
      const short = recentOf.get(key)
      const long = hourOf.get(key)
      const view: ReceiverView = {
        provider,
        egress,
        ratePerMinute: roundRate(deps.rates.ceilingOf(provider)),
        ceilingPerMinute: deps.rates.ceilingOf(provider),
        attempts5m: short?.attempts ?? 0,
        throttled5m: short?.throttled ?? 0,
        deferred5m: short?.deferred ?? 0,
        tenants: sharesOf(short).map(withName),
        attempts60m: long?.attempts ?? 0,
        accepted60m: long?.accepted ?? 0,
        throttled60m: long?.throttled ?? 0,
        deferred60m: long?.deferred ?? 0,
        slowedTenants: (slowedOf.get(key) ?? []).map((row) => withName(slowedView(deps, row, nowMs))),
      }
      if (!stored) return view
      const rate = deps.rates.rateOf({ provider, state: stored.state, nowMs })
      return {
        ...view,
        ratePerMinute: roundRate(rate.ratePerMinute),
        ceilingPerMinute: rate.ceilingPerMinute,
        ...(rate.pausedUntilMs > nowMs ? { pausedUntil: new Date(rate.pausedUntilMs).toISOString() } : {}),
        ...(rate.lastThrottledPerMinute === null
          ? {}
          : { lastThrottledPerMinute: roundRate(rate.lastThrottledPerMinute) }),
        ...(stored.lastReply === null ? {} : { lastReply: stored.lastReply }),
        ...(stored.throttledAt === null ? {} : { lastThrottledAt: stored.throttledAt.toISOString() }),
      }
    })
}

function slowedView(deps: ListReceiversDeps, row: StoredReceiverState, nowMs: number): SlowedTenantView {
  const rate = deps.rates.rateOf({ provider: row.provider, state: row.state, nowMs })
  return {
    id: row.scope,
    ratePerMinute: roundRate(rate.ratePerMinute),
    ...(rate.pausedUntilMs > nowMs ? { pausedUntil: new Date(rate.pausedUntilMs).toISOString() } : {}),
  }
}

async function namesOf(deps: ListReceiversDeps, tenantIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(tenantIds)]
  if (!deps.tenantNames || unique.length === 0) return new Map()
  return deps.tenantNames(unique)
}

function sharesOf(counts: ReceiverWindowCounts | undefined): { id: string; share: number }[] {
  const total = counts?.tenants.reduce((sum, tenant) => sum + tenant.attempts, 0) ?? 0
  if (!counts || total === 0) return []
  return counts.tenants
    .filter((tenant) => tenant.attempts > 0)
    .map((tenant) => ({ id: tenant.tenantId, share: Math.round((tenant.attempts / total) * 1000) / 1000 }))
}

/** The controller's rate climbs continuously; a tenth of a message a minute is precision enough. */
function roundRate(perMinute: number): number {
  return Math.round(perMinute * 10) / 10
}
