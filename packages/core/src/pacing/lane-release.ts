import { groupBy } from '../collections/group-by'
import type {
  BulkLane,
  DepthTarget,
  PacingLogger,
  ReleasedBatch,
  ReleasedMessage,
  ReleasePlan,
} from './ports'

/** The bulk lane's free slots this tick: the depth target (at most `highWater`) less its depth. */
export async function freeCapacity(
  deps: { lane: Pick<BulkLane, 'depth'>; highWater: number; depthTarget?: DepthTarget | undefined },
  nowMs: number,
): Promise<number> {
  const depth = await deps.lane.depth()
  return Math.max(0, fillTarget(deps, nowMs) - depth)
}

/** The depth (in messages) the bulk lane is filled to this tick: the depth target, at most `highWater`. */
export function fillTarget(
  deps: { highWater: number; depthTarget?: DepthTarget | undefined },
  nowMs: number,
): number {
  return Math.min(deps.highWater, deps.depthTarget?.depth(nowMs) ?? deps.highWater)
}

/**
 * BULK_BATCH_SIZE, made no larger than the fill target shared over the lane's worker slots, so every
 * slot has a batch to work on: with PACER_HIGH_WATER 300 and batches of 50, 8 slots would otherwise
 * share 6 jobs and 2 would sit idle. At least 1; without `workerSlots`, the batch size as it is.
 */
export function slotBatchSize(input: {
  batchSize: number
  fillTarget: number
  workerSlots?: number
}): number {
  if (input.workerSlots === undefined || input.workerSlots < 1) return input.batchSize
  return Math.max(1, Math.min(input.batchSize, Math.floor(input.fillTarget / input.workerSlots)))
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

/**
 * The rows in batches of at most `batchSize` per tenant, in the plan's interleaved order at batch
 * granularity: a tenant's k-th row belongs to its batch ⌊k / batchSize⌋, and each batch takes the
 * place of its first row in the plan, so no tenant's batches all sit in front of everyone else's.
 * A tenant's first rows that the plan counts as a new flow's turn (`plan.fresh`) go in batches
 * marked `fresh`, which jump the lane, never with rows of the tenant's later turns.
 *
 * Small batches share a job: the first turns of several new flows fill shared fresh batches (up to
 * `batchSize`, in the plan's order), and neighbouring old flows' batches smaller than `batchSize`
 * are packed together while they fit. With ten thousand tenants of weight 1 a turn is a message or
 * a few, and a job, a claim and a mark each would cost the lane more than the sends (BullMQ's ~33
 * Redis commands a job); one tenant's batches are never packed with each other, so its rows keep
 * their order, and a tenant with a full batch keeps it to itself.
 */
export function inPlanBatches(
  released: readonly ReleasedMessage[],
  plan: ReleasePlan,
  batchSize: number,
): ReleasedBatch[] {
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new RangeError(`batchSize must be a whole number of at least 1, got ${batchSize}`)
  }
  const byTenant = groupBy(released, (row) => row.tenantId)
  const batches: ReleasedBatch[] = []
  const open = new Map<string, ReleasedBatch>()
  let openFresh: ReleasedBatch | undefined
  const placed = new Map<string, number>()
  for (const tenantId of plan.order) {
    const row = byTenant.get(tenantId)?.shift()
    if (!row) continue
    const index = placed.get(tenantId) ?? 0
    placed.set(tenantId, index + 1)
    if (index < (plan.fresh?.get(tenantId) ?? 0)) {
      if (!openFresh || openFresh.messages.length >= batchSize) {
        openFresh = { tenantId, messages: [], fresh: true }
        batches.push(openFresh)
      }
      openFresh.messages.push(row)
      continue
    }
    let batch = open.get(tenantId)
    if (!batch || batch.messages.length >= batchSize) {
      batch = { tenantId, messages: [] }
      open.set(tenantId, batch)
      batches.push(batch)
    }
    batch.messages.push(row)
  }
  return packSmall(batches, batchSize)
}

/**
 * Neighbouring old flows' batches merged while the merged batch stays within `batchSize`. Only a
 * tenant's last batch is ever short, so a merged batch holds each tenant once; a batch kept whole
 * ends the run of merges, so no tenant's last rows move ahead of its full batch.
 */
function packSmall(batches: readonly ReleasedBatch[], batchSize: number): ReleasedBatch[] {
  const packed: ReleasedBatch[] = []
  let open: ReleasedBatch | undefined
  for (const batch of batches) {
    if (batch.fresh === true || batch.messages.length >= batchSize) {
      packed.push(batch)
      open = undefined
      continue
    }
    if (open && open.messages.length + batch.messages.length <= batchSize) {
      open.messages.push(...batch.messages)
      continue
    }
    open = { tenantId: batch.tenantId, messages: [...batch.messages] }
    packed.push(open)
  }
  return packed
}
