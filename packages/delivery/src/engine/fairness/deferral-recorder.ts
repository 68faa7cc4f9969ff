import type { Lane } from '@fairlane/core'
import type { DeferralCount } from '@fairlane/db/queries/deferral-counts'
import type { Logger } from 'pino'

/**
 * Counts the sends each tenant's bucket deferred, per lane and minute, in memory, and adds them to
 * PostgreSQL every `everyMs` (one statement per flush, whatever the number of deferrals), so the
 * daily rollup can report them. A flush that fails keeps its counts for the next one; on a crash the
 * last few seconds' counts are lost, which statistics can afford and a send path must not pay for.
 */
export interface DeferralRecorder {
  record(tenantId: string, lane: Lane): void
  /** Writes what was counted so far; resolves once written (or kept for the next try). */
  flush(): Promise<void>
  /** Stops the timer and writes what is left. */
  close(): Promise<void>
}

export const DEFERRAL_FLUSH_MS = 10_000
const MINUTE_MS = 60_000

export function createDeferralRecorder(options: {
  write(counts: DeferralCount[]): Promise<void>
  logger: Logger
  everyMs?: number
  now?: () => number
}): DeferralRecorder {
  const now = options.now ?? Date.now
  let pending = new Map<string, DeferralCount>()
  let flushing: Promise<void> = Promise.resolve()

  function add(count: DeferralCount): void {
    const key = `${count.tenantId}|${count.lane}|${count.minute.getTime()}`
    const known = pending.get(key)
    if (known) known.count += count.count
    else pending.set(key, { ...count })
  }

  async function writePending(): Promise<void> {
    if (pending.size === 0) return
    const batch = [...pending.values()]
    pending = new Map()
    try {
      await options.write(batch)
    } catch (error) {
      for (const count of batch) add(count)
      options.logger.warn(
        { err: (error as Error).message, kept: batch.length },
        'deferral counts not written; kept for the next flush',
      )
    }
  }

  const flush = () => {
    flushing = flushing.then(writePending)
    return flushing
  }
  const timer = setInterval(() => void flush(), options.everyMs ?? DEFERRAL_FLUSH_MS)
  timer.unref()

  return {
    record(tenantId, lane) {
      const minute = new Date(Math.floor(now() / MINUTE_MS) * MINUTE_MS)
      add({ tenantId, lane, minute, count: 1 })
    },
    flush,
    async close() {
      clearInterval(timer)
      await flush()
    },
  }
}
