import type { Lane } from '@fairlane/core'

/**
 * The transactional lanes whose rows the relay publishes in batch jobs (TX_BATCH_SIZE): default only.
 * Critical stays one job per message: a batch is sent in sequence on one connection, so the last of
 * 20 login codes would wait for the 19 before it, where 20 single jobs go out over the lane's
 * connections in parallel. Measured (`tx-batches-measure.int.test.ts`, a loaded test machine): a
 * median 50 ms between a batch's messages at the sink, so the 20th would wait ~1 s, five times the
 * codes' 200 ms p99 goal; a send would have to take under ~10 ms for 19 of them to fit in it.
 */
export const TX_BATCH_LANES: readonly Lane[] = ['default']

export interface Publishable {
  lane: Lane
  tenantId: string
  /** How long its job waits for its turn (the relay's admission). */
  delayMs: number
}

/**
 * Cuts the rows one relay pass publishes into jobs, in publishing order: on a batch lane, one
 * tenant's rows in this pass go in batches of up to `batchSize`, in their order (each batch where its
 * first row was); everything else, and a batch that would carry one row, is a job of one. So a lone
 * message is always its own job, published at once: nothing ever waits for a batch to fill, and only a
 * tenant with more than one row in the pass (under load) has its rows batched. `batchSize` 1: off.
 */
export function cutIntoJobs<Row extends Publishable>(
  rows: readonly Row[],
  batchSize: number,
  batchLanes: readonly Lane[] = TX_BATCH_LANES,
): Row[][] {
  const jobs: Row[][] = []
  if (batchSize <= 1) return rows.map((row) => [row])
  const open = new Map<string, Row[]>()
  for (const row of rows) {
    if (!batchLanes.includes(row.lane)) {
      jobs.push([row])
      continue
    }
    const key = `${row.lane}:${row.tenantId}`
    const batch = open.get(key)
    if (batch && batch.length < batchSize) {
      batch.push(row)
      continue
    }
    const fresh = [row]
    open.set(key, fresh)
    jobs.push(fresh)
  }
  return jobs
}

/**
 * A batch is due when its first row's turn comes: the lane worker's one token take for the batch is
 * the guarantee of the tenant's rate (what its bucket does not grant waits in the job, nothing spent).
 */
export function batchDelayMs(rows: readonly Publishable[]): number {
  return Math.min(...rows.map((row) => row.delayMs))
}
