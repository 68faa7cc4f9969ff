import { listReceivers, type ReceiverRates } from '@fairlane/core/receivers'
import type { Database } from '@fairlane/db'
import { listReceiverStates } from '@fairlane/db/queries/receiver-states'
import type { ReceiverRateSample } from './receiver-metrics'

/**
 * What `fairlane_receiver_rate` reads on a scrape: every provider at every egress address with a
 * stored state (`receiver_states`: it throttled there once), read now by the controller (`rates`,
 * the rules file's ceilings and back-off). A provider that never throttled runs at its ceiling and
 * has no series; the console (`GET /api/admin/receivers`) also lists those, from the counters.
 */
export function createReceiverRateSource(deps: {
  db: Database
  rates: ReceiverRates
  clock?: { now(): Date }
}): () => Promise<ReceiverRateSample[]> {
  const clock = deps.clock ?? { now: () => new Date() }
  // The gauge needs the states only: no counters are read on a scrape.
  const noCounts = { read: async () => [] }
  return () =>
    listReceivers({
      states: { list: () => listReceiverStates(deps.db) },
      counters: noCounts,
      rates: deps.rates,
      clock,
    })
}
