import { createWakeSignal } from '../wake-signal'
import { type SweepDeps, sweepOnce } from './sweep-once'

export interface SweeperOptions extends SweepDeps {
  intervalMs: number
}

export interface Sweeper {
  /** Lets the current pass finish, then stops. */
  stop(): Promise<void>
}

/** Runs `sweepOnce` every `intervalMs` until stopped; a failed pass is logged and the next one tries again. */
export function startSweeper(options: SweeperOptions): Sweeper {
  const signal = createWakeSignal()
  let stopped = false

  async function loop(): Promise<void> {
    while (!stopped) {
      await signal.sleep(options.intervalMs)
      if (stopped) break
      try {
        await sweepOnce(options)
      } catch (error) {
        options.logger.warn({ err: (error as Error).message }, 'sweeper pass failed; retrying next interval')
      }
    }
  }

  const running = loop()
  return {
    async stop() {
      stopped = true
      signal.interrupt()
      await running
    },
  }
}
