/**
 * A sleep that a wake-up can cut short. Wake-ups that arrive while nobody sleeps are remembered
 * (one pending flag), so a NOTIFY that lands during a pass causes exactly one more pass.
 */
export function createWakeSignal() {
  let pending = false
  let interrupted = false
  let release: (() => void) | undefined

  function sleep(ms: number, options: { ignoreWake?: boolean } = {}): Promise<void> {
    if (interrupted) return Promise.resolve()
    if (pending && !options.ignoreWake) {
      pending = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        release = undefined
        resolve()
      }
      release = () => {
        if (options.ignoreWake && !interrupted) return
        pending = false
        done()
      }
    })
  }

  return {
    sleep,
    wake(): void {
      pending = true
      release?.()
    },
    /** Ends the current and every later sleep at once (shutdown). */
    interrupt(): void {
      interrupted = true
      release?.()
    },
  }
}
