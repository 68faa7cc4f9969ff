/**
 * The bulk governor: the bulk lane yields to login codes by measurement, not only by nice levels.
 * The critical lane's recent send latencies (created → accepted by SMTP) give a moving p95; while it
 * is over its target, the factor by which the bulk lane runs (the pacer's queue depth, the bulk
 * workers' concurrency) is cut; once it is back under, the factor grows again. Multiplicative
 * decrease, additive increase (as TCP's congestion window): a burst of slow codes halves bulk at once,
 * and bulk comes back a step per period, so it does not bounce straight back into the same overload.
 */

export interface GovernorSettings {
  /** The critical lane's p95 to keep under, ms (BULK_GOVERNOR_TARGET_MS). */
  targetMs: number
  /** The factor is never cut below this: bulk always makes some progress. */
  minFactor: number
  /** Cut applied per period over target (factor × decrease). */
  decrease: number
  /** Added per period once the p95 is under `recoverBelow` × target. */
  increase: number
  /** Hysteresis: between this share of the target and the target, the factor holds. */
  recoverBelow: number
}

export const DEFAULT_GOVERNOR_SETTINGS: Omit<GovernorSettings, 'targetMs'> = {
  minFactor: 0.1,
  decrease: 0.5,
  increase: 0.1,
  recoverBelow: 0.8,
}

/**
 * The next factor from the current one and the p95 of the period just ended (undefined: no critical
 * mail was sent, so nothing is slowed by bulk and the factor recovers).
 */
export function nextGovernorFactor(
  factor: number,
  p95Ms: number | undefined,
  settings: GovernorSettings,
): number {
  const current = Math.min(1, Math.max(settings.minFactor, factor))
  if (p95Ms !== undefined && p95Ms > settings.targetMs) {
    return Math.max(settings.minFactor, current * settings.decrease)
  }
  if (p95Ms === undefined || p95Ms < settings.targetMs * settings.recoverBelow) {
    return Math.min(1, round(current + settings.increase))
  }
  return current
}

/** The value at `quantile` (0..1) of the samples, nearest rank; undefined without samples. */
export function quantileOf(samples: readonly number[], quantile: number): number | undefined {
  if (samples.length === 0) return undefined
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.ceil(quantile * sorted.length) - 1
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]
}

/**
 * Latency samples of the last `windowMs`, at most `maxSamples` (the oldest dropped first): what the
 * governor's p95 is taken over. Memory stays bounded however many codes a burst sends.
 */
export function createLatencyWindow(options: { windowMs: number; maxSamples: number }) {
  let samples: { atMs: number; latencyMs: number }[] = []
  return {
    record(atMs: number, latencyMs: number): void {
      samples.push({ atMs, latencyMs })
      if (samples.length > options.maxSamples) samples = samples.slice(-options.maxSamples)
    },
    p95(nowMs: number): number | undefined {
      samples = samples.filter((sample) => sample.atMs > nowMs - options.windowMs)
      return quantileOf(
        samples.map((sample) => sample.latencyMs),
        0.95,
      )
    },
  }
}

/** How many of `full` to run under `factor`: at least one, so bulk never stops outright. */
export function governed(full: number, factor: number): number {
  return Math.max(1, Math.round(full * factor))
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

/**
 * The governor's Redis keys under QUEUE_PREFIX: the worker writes them, the admin console reads them.
 * One hash tag for all three, since the factor and the history are written in one MULTI (one slot on
 * a Redis Cluster).
 */
export function governorKeys(prefix: string) {
  const factor = `${prefix}:{governor}:bulk-factor`
  return { factor, steer: `${factor}:steer`, history: `${factor}:history` }
}

/** The factor as stored under `governorKeys(prefix).factor`; undefined when absent or unreadable (bulk runs full). */
export function readGovernorFactor(stored: string | null): number | undefined {
  const value = stored === null ? Number.NaN : Number(stored)
  return Number.isFinite(value) ? value : undefined
}

/** One steering period, as the admin console charts it. */
export interface GovernorPeriod {
  /** Epoch ms. */
  t: number
  factor: number
  /** The critical lane's moving p95 at that period; null: no login code was sent in the window. */
  p95Ms: number | null
}

/** How many periods the history keeps: 15 minutes at one a second. */
export const GOVERNOR_HISTORY_LENGTH = 900

export function encodeGovernorPeriod(period: GovernorPeriod): string {
  return `${period.t}:${period.factor}:${period.p95Ms ?? ''}`
}

/** The history's entries (newest first, as LPUSH leaves them), oldest first; malformed ones skipped. */
export function decodeGovernorHistory(entries: readonly string[]): GovernorPeriod[] {
  const periods: GovernorPeriod[] = []
  for (const entry of entries) {
    const match = /^(\d+):(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)?$/.exec(entry)
    if (!match) continue
    const [, t, factor, p95] = match
    periods.push({ t: Number(t), factor: Number(factor), p95Ms: p95 === undefined ? null : Number(p95) })
  }
  return periods.reverse()
}
