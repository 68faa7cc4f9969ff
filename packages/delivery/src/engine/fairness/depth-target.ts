/**
 * How deep the pacer lets the bulk queue get. Released jobs are served first in, first out, so a
 * tenant whose campaign starts while the queue is full waits behind all of it: the depth must be a
 * fraction of a second of what the lane actually sends, not a fixed count. A fixed 300 is 0.15 s on a
 * machine sending 2,000 a second and 1.5 s on one sending 200.
 *
 * The lane's rate is read from the pacer's own releases: while the queue is at its target, the pacer
 * releases exactly what the workers finish. The target never drops below `minDepth` (a couple of
 * jobs per worker slot, so the workers are never starved between ticks) nor rises above `maxDepth`
 * (`PACER_HIGH_WATER`, what Redis may hold). Starting at `minDepth`, it grows by about
 * `queueSeconds ÷ tick` per window while the workers keep up, so a fast machine finds its depth in a
 * few seconds.
 */
export interface DepthTargetOptions {
  /**
   * A number, or read at each `depth` call: the pacer's floor moves with the messages its jobs carry
   * (two jobs per worker slot are 32 messages of batches of 2 and 800 of batches of 50).
   */
  minDepth: number | (() => number)
  maxDepth: number
  /** How many seconds of the lane's sends the queue may hold. */
  queueSeconds: number
  /** Over how long the release rate is averaged. */
  windowMs?: number
}

export interface DepthTarget {
  /** The pacer released `count` jobs at `atMs`. */
  record(atMs: number, count: number): void
  /** The depth to fill the queue up to now. */
  depth(atMs: number): number
  /** Jobs per second released over the window, as `depth` reads it. */
  ratePerSec(atMs: number): number
  /** Under the bulk governor, the depth before its cut: what the pacer sizes batches from. */
  ungoverned?(atMs: number): number
}

export const DEPTH_WINDOW_MS = 3_000

export function createDepthTarget(options: DepthTargetOptions): DepthTarget {
  const windowMs = options.windowMs ?? DEPTH_WINDOW_MS
  const minDepth = typeof options.minDepth === 'number' ? () => options.minDepth as number : options.minDepth
  if (!(minDepth() >= 1 && options.maxDepth >= 1 && options.queueSeconds > 0 && windowMs > 0)) {
    throw new RangeError(`depth target needs minDepth, maxDepth ≥ 1 and positive queueSeconds, windowMs`)
  }
  const releases: Array<{ atMs: number; count: number }> = []
  let inWindow = 0

  function forgetBefore(atMs: number): void {
    while (releases.length > 0 && (releases[0] as { atMs: number }).atMs <= atMs - windowMs) {
      inWindow -= (releases.shift() as { count: number }).count
    }
  }

  const target: DepthTarget = {
    record(atMs, count) {
      if (!(count > 0)) return
      releases.push({ atMs, count })
      inWindow += count
      forgetBefore(atMs)
    },
    ratePerSec(atMs) {
      forgetBefore(atMs)
      return (inWindow * 1000) / windowMs
    },
    depth(atMs) {
      const wanted = Math.ceil(target.ratePerSec(atMs) * options.queueSeconds)
      return Math.min(options.maxDepth, Math.max(1, minDepth(), wanted))
    },
  }
  return target
}
