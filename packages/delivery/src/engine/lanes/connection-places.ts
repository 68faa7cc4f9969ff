/**
 * A mailer's SMTP connections as places: at most `count` held at once, the waiters served in two
 * first-in-first-out lines, the `ahead` line first. A new tenant's first turn waits in that line
 * (fq_codel's new flows carried down to the connection): a lane whose 20 worker slots share 8
 * connections otherwise puts its first send behind every batch already waiting for one, each of
 * which holds its connection for its whole batch.
 *
 * A waiter whose `signal` aborts leaves its line at once, rejected with the signal's reason; the
 * place it would have had goes to the next waiter.
 */
export interface ConnectionPlaces {
  /** Resolves with the place's give-back (calling it twice gives back once). */
  take(input: { ahead: boolean; signal?: AbortSignal }): Promise<() => void>
  /** Places held now, and waiters in each line: for tests and metrics. */
  readonly held: number
  readonly waiting: { ahead: number; behind: number }
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

  /** The freed place to the first waiter still waiting, the `ahead` line first. */
  function handOn(): void {
    while (held < count) {
      const next = nextWaiter()
      if (!next) return
      held += 1
      next.grant(giveBackOnce())
    }
  }

  function nextWaiter(): Waiter | undefined {
    for (const line of [ahead, behind]) {
      while (line.length > 0) {
        const waiter = line.shift() as Waiter
        if (!waiter.gone) return waiter
      }
    }
    return undefined
  }

  return {
    take({ ahead: first, signal }) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (held < count && ahead.length === 0 && behind.length === 0) {
        held += 1
        return Promise.resolve(giveBackOnce())
      }
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
        ;(first ? ahead : behind).push(waiter)
      })
    },
    get held() {
      return held
    },
    get waiting() {
      const live = (line: Waiter[]) => line.filter((waiter) => !waiter.gone).length
      return { ahead: live(ahead), behind: live(behind) }
    },
  }
}
