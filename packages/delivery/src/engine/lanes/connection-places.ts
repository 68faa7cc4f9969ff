/**
 * A mailer's SMTP connections as places: at most `count` held at once, the waiters served in two
 * first-in-first-out lines, the `ahead` line first. A new tenant's first turn waits in that line
 * (fq_codel's new flows carried down to the connection): a lane whose 20 worker slots share 8
 * connections otherwise puts its first send behind every batch already waiting for one, each of
 * which holds its connection for its whole batch.
 *
 * A batch holds its connection from one message to the next, so a first turn would still wait for
 * the end of a whole batch (37 messages at 47 ms each is 1.7 s; with 8 batches sending, one ends every
 * 200 ms). `yieldToAhead` closes that gap: between two of its messages, a batch hands its place to a
 * waiter in the `ahead` line and waits for the next free place in the `resumed` line, served after
 * `ahead` and before `behind` (it was sending already; a batch that never started is not passed by one
 * that did). A first turn then waits one message, not one batch.
 *
 * A waiter whose `signal` aborts leaves its line at once, rejected with the signal's reason; the
 * place it would have had goes to the next waiter.
 */
export interface ConnectionPlaces {
  /** Resolves with the place's give-back (calling it twice gives back once). */
  take(input: { ahead: boolean; signal?: AbortSignal }): Promise<() => void>
  /**
   * With a waiter in the `ahead` line: gives the held place (`giveBack`) to it and resolves with the
   * give-back of the next place this holder gets (in the `resumed` line). Without one: resolves with
   * `giveBack` itself, nothing given up. Rejects as `take` does when `signal` aborts; the held place
   * is gone then.
   */
  yieldToAhead(giveBack: () => void, signal?: AbortSignal): Promise<() => void>
  /** Places held now, and waiters in each line: for tests and metrics. */
  readonly held: number
  readonly waiting: { ahead: number; resumed: number; behind: number }
}

interface Waiter {
  grant(giveBack: () => void): void
  /** Left its line (aborted): skipped when its turn comes. */
  gone: boolean
}

export function createConnectionPlaces(count: number): ConnectionPlaces {
  if (!(Number.isInteger(count) && count >= 1)) {
    throw new RangeError(`connections must be a whole number of at least 1, got ${count}`)
  }
  let held = 0
  const ahead: Waiter[] = []
  const resumed: Waiter[] = []
  const behind: Waiter[] = []

  function giveBackOnce(): () => void {
    let given = false
    return () => {
      if (given) return
      given = true
      held -= 1
      handOn()
    }
  }

  /** The freed place to the first waiter still waiting: `ahead`, then `resumed`, then `behind`. */
  function handOn(): void {
    while (held < count) {
      const next = nextWaiter()
      if (!next) return
      held += 1
      next.grant(giveBackOnce())
    }
  }

  function nextWaiter(): Waiter | undefined {
    for (const line of [ahead, resumed, behind]) {
      while (line.length > 0) {
        const waiter = line.shift() as Waiter
        if (!waiter.gone) return waiter
      }
    }
    return undefined
  }

  /** Whether a live waiter stands in the `ahead` line (those that left it are dropped on the way). */
  function aheadWaiting(): boolean {
    while (ahead.length > 0 && (ahead[0] as Waiter).gone) ahead.shift()
    return ahead.length > 0
  }

  function wait(line: Waiter[], signal: AbortSignal | undefined): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        gone: false,
        grant(giveBack) {
          signal?.removeEventListener('abort', onAbort)
          resolve(giveBack)
        },
      }
      const onAbort = () => {
        waiter.gone = true
        reject(signal?.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      line.push(waiter)
      // A free place (only waiters that left stood in front) goes to the first live waiter now.
      handOn()
    })
  }

  return {
    take({ ahead: first, signal }) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (held < count && ahead.length === 0 && resumed.length === 0 && behind.length === 0) {
        held += 1
        return Promise.resolve(giveBackOnce())
      }
      return wait(first ? ahead : behind, signal)
    },
    yieldToAhead(giveBack, signal) {
      if (!aheadWaiting()) return Promise.resolve(giveBack)
      // In line before the place is given up, so no `behind` waiter can take it first.
      const next = wait(resumed, signal)
      giveBack()
      return next
    },
    get held() {
      return held
    },
    get waiting() {
      const live = (line: Waiter[]) => line.filter((waiter) => !waiter.gone).length
      return { ahead: live(ahead), resumed: live(resumed), behind: live(behind) }
    },
  }
}
