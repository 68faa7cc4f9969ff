import type { Lane } from '@fairlane/core'

/** How long a row waits before a backstop relay (a bulk-only process) publishes it: `processRoles`. */
export const RELAY_BACKSTOP_AFTER_MS = 2_000

/**
 * How long the split layout's bulk process waits before it takes a pacer lease the transactional
 * process left (`PacerLeadershipOptions.standbyMs`): a few lease terms, so a restart of worker-tx
 * keeps the lead there, while bulk is released again within seconds if worker-tx is gone.
 */
export const PACER_STANDBY_MS = 10_000

/**
 * What a worker process runs besides its lanes, from the lanes it serves. In the split layout the
 * process that serves the transactional lanes is the login codes' reservation (its own event loop,
 * SMTP connections, database pool and nice -5), and the bulk process runs at nice 10:
 *  - a process that serves bulk and no transactional lane relays only as a backstop
 *    (`RelayOptions.backstopAfterMs`): otherwise its relay, woken by the same NOTIFY, claims some of
 *    the codes' outbox rows and publishes them when its busy, low-priority event loop gets to it
 *    (measured under bulk load: 57 of 162 codes, `pnpm bench:fairness`'s `outboxPublishedBy`);
 *  - the pacer leads from the transactional process, and the bulk-only process stands by
 *    (`pacer: 'standby'`, taking the lease only after `PACER_STANDBY_MS` without a leader). A tick
 *    is a handful of round trips to PostgreSQL and Redis and little CPU, but each of its awaits waits
 *    for its event loop: on the bulk process's, busy with batches at nice 10, ticks took p50 ≤ 50 ms
 *    and p99 ≤ 250 ms (`pnpm bench:fairness`'s `pacerTick`), and a campaign that came due waited
 *    for them before its first release (`smallFirstSendSteps.release`, 232–367 ms).
 * A process with every lane, or with none (a producer, as some tests run), runs both in full.
 */
export function processRoles(lanes: readonly Lane[]): {
  relayBackstopOnly: boolean
  pacer: 'lead' | 'standby'
} {
  const transactional = lanes.includes('critical') || lanes.includes('default')
  const bulk = lanes.includes('bulk')
  return { relayBackstopOnly: bulk && !transactional, pacer: bulk && !transactional ? 'standby' : 'lead' }
}
