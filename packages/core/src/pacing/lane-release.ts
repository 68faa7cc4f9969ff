import type { BulkLane, DepthTarget, PacingLogger, ReleasedBatch, ReleasedMessage } from './ports'

/** The bulk lane's free slots this tick: the depth target (at most `highWater`) less its depth. */
export async function freeCapacity(
  deps: { lane: Pick<BulkLane, 'depth'>; highWater: number; depthTarget?: DepthTarget | undefined },
  nowMs: number,
): Promise<number> {
  const depth = await deps.lane.depth()
  const target = Math.min(deps.highWater, deps.depthTarget?.depth(nowMs) ?? deps.highWater)
  return Math.max(0, target - depth)
}

/**
 * Adds the claimed rows' jobs, outside any transaction. If adding fails, the claimed rows go back
 * to pending and the error is thrown: a job that reached Redis anyway finds its row claimable and
 * its id stable, so a later release adds nothing twice.
 */
export async function enqueueOrGiveBack(
  deps: {
    lane: Pick<BulkLane, 'enqueue'> & Partial<Pick<BulkLane, 'enqueueBatches'>>
    store: { giveBack(released: readonly ReleasedMessage[]): Promise<number> }
    logger: PacingLogger
  },
  jobs: readonly ReleasedMessage[] | { batches: readonly ReleasedBatch[] },
  released: readonly ReleasedMessage[],
): Promise<void> {
  if ('batches' in jobs ? jobs.batches.length === 0 : jobs.length === 0) return
  try {
    if ('batches' in jobs) {
      if (!deps.lane.enqueueBatches) throw new Error('this lane adds no batch jobs')
      await deps.lane.enqueueBatches(jobs.batches)
    } else await deps.lane.enqueue(jobs)
  } catch (error) {
    const returned = await deps.store.giveBack(released)
    deps.logger.warn(
      { err: (error as Error).message, claimed: released.length, returned },
      'pacer could not add its jobs; the claimed rows are pending again',
    )
    throw error
  }
}
