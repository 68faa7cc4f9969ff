import type { Lane } from '@fairlane/core'

/** How long a row waits before a backstop relay (a bulk-only process) publishes it: `processRoles`. */
export const RELAY_BACKSTOP_AFTER_MS = 2_000

/**
 * What a worker process runs besides its lanes, from the lanes it serves. In the split layout the
 * process that serves the transactional lanes is the login codes' reservation (its own event loop,
 * SMTP connections, database pool and nice 0), and the bulk process runs at nice 10:
 *  - a process that serves bulk and no transactional lane relays only as a backstop
 *    (`RelayOptions.backstopAfterMs`): otherwise its relay, woken by the same NOTIFY, claims some of
 *    the codes' outbox rows and publishes them when its busy, low-priority event loop gets to it
 *    (measured under bulk load: 57 of 162 codes, `pnpm bench:fairness`'s `outboxPublishedBy`);
 *  - a process that serves transactional lanes and not bulk does not stand for pacer leadership:
 *    releasing bulk (its claims and queue writes, every tick) is bulk's work, not the reservation's.
 * A process with every lane, or with none (a producer, as some tests run), runs both in full.
 */
export function processRoles(lanes: readonly Lane[]): {
  relayBackstopOnly: boolean
  pacerCandidate: boolean
} {
  const transactional = lanes.includes('critical') || lanes.includes('default')
  const bulk = lanes.includes('bulk')
  return { relayBackstopOnly: bulk && !transactional, pacerCandidate: bulk || !transactional }
}
