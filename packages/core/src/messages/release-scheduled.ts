import type { ReleasedMessage, ScheduledReleaseStore } from './ports'

export interface ReleaseScheduledOptions {
  /** Rows per transaction. */
  batchSize: number
  /** Batches per pass at most, so one pass never holds the loop for long; the rest waits a tick. */
  maxBatches: number
}

/**
 * One pass of the scheduled-send releaser: every due `scheduled` message becomes `queued` with an outbox
 * row, oldest first, in batches. It releases, it does not pace: 10,000 reminders due at 09:00:00 all
 * reach the outbox at once, and the relay's fair claim (a bounded share per tenant per pass) and its
 * per-tenant lane parking hold them to their tenant's plan from there, so another tenant's mail accepted
 * at 09:00:00 is published in the relay's next pass, not after them. Safe with several workers: each
 * batch skips the rows another releaser has locked.
 */
export async function releaseScheduled(
  options: ReleaseScheduledOptions,
  deps: { store: ScheduledReleaseStore },
): Promise<ReleasedMessage[]> {
  const released: ReleasedMessage[] = []
  for (let batch = 0; batch < options.maxBatches; batch += 1) {
    const rows = await deps.store.releaseDue({ limit: options.batchSize })
    released.push(...rows)
    if (rows.length < options.batchSize) break
  }
  return released
}
