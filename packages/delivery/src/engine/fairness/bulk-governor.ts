import {
  createLatencyWindow,
  DEFAULT_GOVERNOR_SETTINGS,
  encodeGovernorPeriod,
  GOVERNOR_HISTORY_LENGTH,
  type GovernorSettings,
  governed,
  governorKeys,
  nextGovernorFactor,
  readGovernorFactor,
} from '@fairlane/fairness'
import type { RedisClient } from '@fairlane/queue'
import type { Logger } from 'pino'
import { withTimeout } from '../with-timeout'
import type { DepthTarget } from './depth-target'

/**
 * The bulk governor across processes. The process that runs the critical lane measures it (each
 * login code's created → accepted latency) and, once a period, steers: the next factor from the
 * shared one and its moving p95 (`nextGovernorFactor`), written to Redis with a short expiry. Every
 * process reads the factor each period and applies it to what it runs of the bulk lane: the pacer's
 * queue depth and the bulk workers' concurrency (`governed`). In the split layout the critical lane
 * and the bulk lane run in different processes, so the factor has to travel; one GET and at most two
 * SETs a second, against hundreds of commands a second for the mail itself.
 *
 * The steering process also appends each period (factor and p95) to a capped list: the admin
 * console's chart of the last 15 minutes.
 *
 * Failing safe: the key expires a few periods after its last write, so a steering process that died
 * or cannot reach Redis leaves bulk at full speed (the factor read as 1), never stuck throttled. With
 * several critical processes only one steers per period (a `NX` period lock), from its own samples:
 * a share of the same lane, so the same p95 near enough, and the cut is applied once, not once per
 * process.
 */
export interface BulkGovernorOptions {
  redis: RedisClient
  /** QUEUE_PREFIX: the keys are `governorKeys(prefix)`. */
  prefix: string
  /** BULK_GOVERNOR_TARGET_MS and the maths' constants. */
  settings: GovernorSettings
  /** This process runs the critical lane: it measures and steers. */
  steers: boolean
  periodMs?: number
  /** Samples older than this no longer count in the p95. */
  windowMs?: number
  redisTimeoutMs?: number
  logger: Logger
  /** `fairlane_bulk_governor_factor`. */
  gauge: { set(value: number): void }
}

export interface BulkGovernor {
  /** A critical-lane message the SMTP server accepted `latencyMs` after it was created. */
  recordCritical(latencyMs: number): void
  /** The factor this process runs bulk at (1: full; never below the settings' minimum). */
  factor(): number
  /** Called with each new factor, after the period that read it. */
  onChange(listener: (factor: number) => void): void
  /** One period now (the loop calls it; tests call it directly). */
  tick(): Promise<void>
  stop(): void
}

export const GOVERNOR_TUNING = { periodMs: 1_000, windowMs: 2_000, maxSamples: 2_000, redisTimeoutMs: 500 }
/** The shared factor outlives its last write by this many periods. */
const FACTOR_TTL_PERIODS = 5

export function governorSettings(targetMs: number): GovernorSettings {
  return { ...DEFAULT_GOVERNOR_SETTINGS, targetMs }
}

export function startBulkGovernor(options: BulkGovernorOptions): BulkGovernor {
  const periodMs = options.periodMs ?? GOVERNOR_TUNING.periodMs
  const redisTimeoutMs = options.redisTimeoutMs ?? GOVERNOR_TUNING.redisTimeoutMs
  const window = createLatencyWindow({
    windowMs: options.windowMs ?? GOVERNOR_TUNING.windowMs,
    maxSamples: GOVERNOR_TUNING.maxSamples,
  })
  const keys = governorKeys(options.prefix)
  const listeners: Array<(factor: number) => void> = []
  let factor = 1
  let stopped = false
  let running: Promise<void> | undefined
  options.gauge.set(factor)

  const redisCall = <T>(what: string, call: Promise<T>) => withTimeout(call, redisTimeoutMs, what)

  async function readShared(): Promise<number> {
    const stored = await redisCall('bulk governor read', options.redis.get(keys.factor))
    return readGovernorFactor(stored) ?? 1
  }

  async function steer(shared: number): Promise<number> {
    const lock = await redisCall(
      'bulk governor period lock',
      options.redis.set(keys.steer, '1', 'PX', periodMs, 'NX'),
    )
    if (lock !== 'OK') return shared
    const now = Date.now()
    const p95Ms = window.p95(now)
    const next = nextGovernorFactor(shared, p95Ms, options.settings)
    const period = encodeGovernorPeriod({ t: now, factor: next, p95Ms: p95Ms ?? null })
    const written = await redisCall(
      'bulk governor write',
      options.redis
        .multi()
        .set(keys.factor, String(next), 'PX', periodMs * FACTOR_TTL_PERIODS)
        .lpush(keys.history, period)
        .ltrim(keys.history, 0, GOVERNOR_HISTORY_LENGTH - 1)
        .exec(),
    )
    const failed = written?.find(([error]) => error)?.[0]
    if (!written || failed) throw failed ?? new Error('bulk governor write was discarded')
    return next
  }

  async function period(): Promise<void> {
    const shared = await readShared()
    const next = options.steers ? await steer(shared) : shared
    if (next !== factor) {
      options.logger.info({ from: factor, to: next, p95Ms: window.p95(Date.now()) }, 'bulk governor factor')
      factor = next
      options.gauge.set(factor)
      for (const listener of listeners) listener(factor)
    }
  }

  const tick = async () => {
    if (running) return running
    running = period()
      .catch((error: Error) => {
        // The factor in hand stays: a Redis that cannot be read now is retried next period.
        options.logger.warn({ err: error.message }, 'bulk governor period failed; factor kept')
      })
      .finally(() => {
        running = undefined
      })
    return running
  }

  const timer = setInterval(() => {
    if (!stopped) void tick()
  }, periodMs)
  timer.unref()

  return {
    recordCritical(latencyMs) {
      window.record(Date.now(), Math.max(0, latencyMs))
    },
    factor: () => factor,
    onChange(listener) {
      listeners.push(listener)
    },
    tick,
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}

/**
 * The pacer's depth under the governor: the measured target (or `highWater` without one) times the
 * factor. Releases are still recorded in the measured target, so its rate follows what is sent.
 */
export function governedDepthTarget(
  base: DepthTarget | undefined,
  highWater: number,
  governor: Pick<BulkGovernor, 'factor'>,
): DepthTarget {
  return {
    record: (atMs, count) => base?.record(atMs, count),
    ratePerSec: (atMs) => base?.ratePerSec(atMs) ?? 0,
    depth: (atMs) => governed(base?.depth(atMs) ?? highWater, governor.factor()),
    ungoverned: (atMs) => base?.depth(atMs) ?? highWater,
  }
}
