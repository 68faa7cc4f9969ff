import { type FeedbackStore, type MessageRef, settleFeedbackStatuses } from '@fairlane/core'
import type { Logger } from 'pino'

export interface StatusSettler {
  /** A message whose hard bounce or complaint is in but whose send is not recorded yet. */
  track(ref: MessageRef): void
  /** Picks up what a previous run was still waiting for: feedback events since `since`. */
  recover(since: Date): Promise<number>
  /** One pass now (the loop runs them every `intervalMs`). */
  tick(): Promise<void>
  pending(): number
  stop(): Promise<void>
}

/** Messages settled per pass; the rest wait for the next. */
const BATCH = 500

/**
 * The loop around `settleFeedbackStatuses`: every `intervalMs` it gives the tracked messages that are
 * `sent` by now their `bounced`/`complained` status, and lets go of those still unsent after
 * `maxAgeMs` (a send that never completes; its event and suppression stay). Memory is the list; on
 * boot `recover` rebuilds it from the events, so a restart loses nothing.
 */
export function startStatusSettler(options: {
  store: Pick<FeedbackStore, 'settleStatuses' | 'findUnsettled'>
  logger: Logger
  intervalMs: number
  maxAgeMs: number
  now?: () => number
  onPendingChange?: (count: number) => void
}): StatusSettler {
  const now = options.now ?? Date.now
  const waiting = new Map<string, { ref: MessageRef; since: number }>()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  const changed = () => options.onPendingChange?.(waiting.size)

  function track(ref: MessageRef): void {
    if (!waiting.has(ref.messageId)) waiting.set(ref.messageId, { ref, since: now() })
    changed()
  }

  async function pass(): Promise<void> {
    const batch = [...waiting.values()].slice(0, BATCH)
    if (batch.length === 0) return
    const { settled, stillPending } = await settleFeedbackStatuses(
      batch.map((entry) => entry.ref),
      { store: options.store },
    )
    const still = new Set(stillPending.map((ref) => ref.messageId))
    for (const entry of batch) {
      if (!still.has(entry.ref.messageId)) waiting.delete(entry.ref.messageId)
      else if (now() - entry.since > options.maxAgeMs) {
        waiting.delete(entry.ref.messageId)
        options.logger.warn(
          { ...entry.ref, waitedMs: now() - entry.since },
          'a bounced or complained message was never recorded as sent; its status is left as it is',
        )
      }
    }
    if (settled > 0)
      options.logger.info({ settled }, 'feedback statuses settled after their sends were recorded')
    changed()
  }

  function tick(): Promise<void> {
    running ??= pass().finally(() => {
      running = undefined
    })
    return running
  }

  function schedule(): void {
    if (stopped) return
    timer = setTimeout(() => {
      tick()
        .catch((error: unknown) =>
          options.logger.warn({ err: error }, 'settling feedback statuses failed; will retry'),
        )
        .finally(schedule)
    }, options.intervalMs)
  }
  schedule()

  return {
    track,
    async recover(since) {
      const refs = await options.store.findUnsettled({ since })
      for (const ref of refs) track(ref)
      return refs.length
    },
    tick,
    pending: () => waiting.size,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running?.catch(() => {})
    },
  }
}
