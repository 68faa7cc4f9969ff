/**
 * While a new flow's first turn is being sent in this process, the old flows' batches hold back
 * before their next message, so the first turn is not sent at the pace of a saturated event loop.
 *
 * Measured in `bench:fairness` (one run, the bulk process busy with 8 batches): a first turn's
 * single message took 150–960 ms from its job's start to its end though it waited for no connection
 * (claim 30 ms at the median, compose and sign 29, the token 20, SMTP 45, the mark 38): every await
 * of it waited behind a round of the other batches' composing, signing and socket work. A connection
 * (`yieldToAhead`) is not what it lacks; the process's attention is.
 *
 * The hold is bounded so old flows are never starved by a stream of newcomers: each wait ends when
 * no first turn is in progress, or after `maxPauseMs`, and an old flow's connection sends at least
 * one message between two waits.
 */
export interface FirstTurns {
  /** A first turn's job starts in this process: the returned function ends it (twice is harmless). */
  enter(): () => void
  /** Before an old flow's next message: resolves at once, or when no first turn is in progress (≤ `maxPauseMs`). */
  pause(): Promise<void>
  /** First turns in progress now. */
  readonly active: number
}

export const FIRST_TURN_MAX_PAUSE_MS = 50

export function createFirstTurns(options: { maxPauseMs?: number } = {}): FirstTurns {
  const maxPauseMs = options.maxPauseMs ?? FIRST_TURN_MAX_PAUSE_MS
  if (!(maxPauseMs > 0)) throw new RangeError(`maxPauseMs must be positive, got ${maxPauseMs}`)
  let active = 0
  let waiters: Array<() => void> = []

  function releaseWaiters(): void {
    const woken = waiters
    waiters = []
    for (const wake of woken) wake()
  }

  return {
    enter() {
      active += 1
      let left = false
      return () => {
        if (left) return
        left = true
        active -= 1
        if (active === 0) releaseWaiters()
      }
    },
    pause() {
      if (active === 0) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxPauseMs)
        function done() {
          clearTimeout(timer)
          waiters = waiters.filter((waiter) => waiter !== done)
          resolve()
        }
        waiters.push(done)
      })
    },
    get active() {
      return active
    },
  }
}
