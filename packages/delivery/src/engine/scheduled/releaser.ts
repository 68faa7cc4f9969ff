import { releaseScheduled } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { createScheduledReleaseStore } from '@fairlane/db/queries/scheduled-messages'
import type { Logger } from 'pino'
import { createWakeSignal } from '../wake-signal'

/**
 * The scheduled-send releaser's cadence (DELIVERY_TUNING.scheduled): every `everyMs` each worker
 * releases what is due, `batchSize` rows a transaction, at most `maxBatches` a pass. A message is sent
 * at most about `everyMs` after its `sendAt` (plus its turn in the relay and its plan).
 */
export const SCHEDULED_TUNING = { everyMs: 1_000, batchSize: 500, maxBatches: 20 }

export interface ScheduledReleaserOptions {
  db: Database
  everyMs: number
  batchSize: number
  maxBatches: number
  logger: Logger
}

export interface ScheduledReleaser {
  /** Lets the current pass finish, then stops. */
  stop(): Promise<void>
}

/**
 * Runs `releaseScheduled` every `everyMs` until stopped. Every worker runs one: the statement skips the
 * rows another holds, so they share the work and never release a row twice. A failed pass is logged and
 * the next one tries again (the rows stay `scheduled`, nothing is lost).
 */
export function startScheduledReleaser(options: ScheduledReleaserOptions): ScheduledReleaser {
  const signal = createWakeSignal()
  const store = createScheduledReleaseStore(options.db)
  let stopped = false

  async function loop(): Promise<void> {
    while (!stopped) {
      try {
        const released = await releaseScheduled(options, { store })
        if (released.length > 0)
          options.logger.debug({ released: released.length }, 'scheduled mail released')
      } catch (error) {
        options.logger.warn(
          { err: (error as Error).message },
          'scheduled release failed; retrying next interval',
        )
      }
      if (stopped) break
      await signal.sleep(options.everyMs)
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
