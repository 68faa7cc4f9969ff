import { type FeedbackCounts, feedbackSeverity, rateFeedback } from '@fairlane/core'
import { Gauge, type Registry } from 'prom-client'
import type { DepthSource } from './metrics'

/** How long one read of the tenants' 24-hour feedback serves scrapes: it counts a day of events. */
export const FEEDBACK_GAUGES_CACHE_MS = 60_000

/**
 * Per tenant over the last 24 hours, for alerts on sender reputation: the hard-bounce rate and the
 * complaint rate (over sends, as `rateFeedback` defines them) and the sends they are over, so an alert
 * can ignore a tenant with too little mail to judge. Tenants that sent in the window only, the
 * `topTenants` worst against the providers' thresholds (`feedbackSeverity`), so the series stay
 * bounded. One read serves the three gauges and the scrapes of the next `cacheMs`.
 */
export function registerFeedbackGauges(
  registers: Registry[],
  source: DepthSource,
  guarded: (gauge: Gauge, what: string, read: () => Promise<void>) => Promise<void>,
  options: { topTenants: number; cacheMs?: number | undefined },
): void {
  const cacheMs = options.cacheMs ?? FEEDBACK_GAUGES_CACHE_MS
  let read: { at: number; value: Promise<WorstTenant[]> } | undefined
  const worst = () => {
    const now = Date.now()
    if (!read || now - read.at > cacheMs) {
      const entry = {
        at: now,
        value: source.tenantFeedback().then((rows) => worstTenants(rows, options.topTenants)),
      }
      // A failed read is not kept: the next scrape tries again.
      entry.value.catch(() => {
        if (read === entry) read = undefined
      })
      read = entry
    }
    return read.value
  }
  const perTenant = (name: string, help: string, value: (tenant: WorstTenant) => number) => {
    const gauge: Gauge<'tenant'> = new Gauge({
      name,
      help,
      labelNames: ['tenant'],
      registers,
      collect: () =>
        guarded(gauge, name, async () => {
          for (const tenant of await worst()) gauge.set({ tenant: tenant.tenantId }, value(tenant))
        }),
    })
  }
  perTenant(
    'fairlane_tenant_bounce_rate',
    'Hard bounces / sent per tenant over the last 24 h (providers act above 0.05); tenants that sent, the METRICS_TOP_TENANTS worst',
    (tenant) => tenant.bounceRate,
  )
  perTenant(
    'fairlane_tenant_complaint_rate',
    'Complaints / sent per tenant over the last 24 h (providers act above 0.001); tenants that sent, the METRICS_TOP_TENANTS worst',
    (tenant) => tenant.complaintRate,
  )
  perTenant(
    'fairlane_tenant_sent_24h',
    'Messages sent per tenant over the last 24 h: the volume the bounce and complaint rates are over',
    (tenant) => tenant.sent,
  )
}

interface WorstTenant {
  tenantId: string
  sent: number
  bounceRate: number
  complaintRate: number
  severity: number
}

function worstTenants(rows: (FeedbackCounts & { tenantId: string })[], limit: number): WorstTenant[] {
  return rows
    .filter((row) => row.sent > 0)
    .map((row) => {
      const rates = rateFeedback(row)
      return {
        tenantId: row.tenantId,
        sent: row.sent,
        bounceRate: rates.bounceRate ?? 0,
        complaintRate: rates.complaintRate ?? 0,
        severity: feedbackSeverity(rates),
      }
    })
    .sort((a, b) => b.severity - a.severity || b.sent - a.sent)
    .slice(0, Math.max(0, limit))
}
