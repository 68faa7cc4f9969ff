import { type Lane, MESSAGE_PUBLISH_TOPIC, messagePublishEvent } from '@fairlane/core'
import type { Database, Transaction } from '@fairlane/db'
import {
  claimDueParkedOutbox,
  claimUnpublishedOutbox,
  countOutboxAttempt,
  type FreshOutboxClaim,
  type MessageOutboxRow,
  markOutboxPublished,
  nextParkedDueInMs,
  type OutboxEntry,
  type ParkedOutboxClaim,
  parkOutboxRows,
} from '@fairlane/db/queries/outbox'
import { laneParkKey } from '@fairlane/fairness'
import { type SendBatchLaneJob, type SendLaneJob, sendBatchJob, sendJob } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { decideTenantRows, FAIR_LANES, type TenantRows, type TransactionalFairness } from './lane-parking'
import { batchDelayMs, cutIntoJobs } from './tx-batches'

/** Test seams; production wiring passes none. */
export interface RelayHooks {
  /**
   * Runs after the jobs were added and before the rows are marked published (and committed), with the
   * added jobs' ids (a batch job is one id for its messages).
   */
  afterAddBulk?: (published: number, jobIds: readonly string[]) => Promise<void> | void
}

export interface PublishDeps {
  db: Database
  /** Each job goes to its tenant's shard of its lane (LANE_SHARDS). */
  lanes: { queueFor(lane: Lane, tenantId: string): Pick<Queue, 'addBulk'> }
  batchSize: number
  /**
   * TX_BATCH_SIZE: one tenant's default-lane rows in one pass go in batch jobs of up to this many
   * (`cutIntoJobs`); a lone row is its own job. 1 or absent: one job per row.
   */
  txBatchSize?: number
  /** At most this many of one tenant's fresh rows per pass (default: its share of `batchSize`). */
  tenantRowsPerPass?: number
  /** A Redis call that never settles (the server vanished mid-call) must not hold the row locks forever. */
  addTimeoutMs: number
  /** Rows this relay could not parse; left out of its claims so they cannot fill every batch. */
  skipIds: Set<number>
  logger: Logger
  hooks?: RelayHooks
  /** Per-tenant slots and turns on the critical and default lanes; without it they are plain FIFO. */
  fairness?: TransactionalFairness
  /** Parked rows are counted here; the relay loop counts published rows and failed passes. */
  metrics?: Pick<WorkerMetrics, 'outboxPublished' | 'relayFailures' | 'outboxParked' | 'relayPassRows'>
}

export interface BatchResult {
  claimed: number
  published: number
  rejected: number
  /** Rows parked by this pass (tenants over their lane slots or turns). */
  parked?: number
  /** Parked rows claimed whose tenant still could not take them (left parked, untouched). */
  stillParked?: number
  /** Some tenant had more rows than its share of this pass (fresh) or its slots (due parked): pass again. */
  cut?: boolean
}

interface ParsedRow {
  row: OutboxEntry
  lane: Lane
  tenantId: string
  generation: number
  jobId: string
  job: SendLaneJob
}

/** What the relay adds to a lane: a message's own job, or a batch of one tenant's (default lane). */
type LaneJob = SendLaneJob | SendBatchLaneJob

/** Beyond this many unparseable rows the skip list starts over, so memory stays bounded. */
const MAX_SKIPPED = 10_000

/**
 * One relay pass. Rows are claimed, turned into jobs, added, and marked published in one
 * transaction: if anything fails the rows stay unpublished and the next pass adds them again. The
 * job ids derive from (message id, generation), so dying after `addBulk` and before COMMIT
 * republishes the same ids and BullMQ keeps one job each; if that job already finished and was
 * pruned, the new one finds the message sent and skips it.
 */
export async function publishOutboxBatch(deps: PublishDeps): Promise<BatchResult> {
  let claimedIds: number[] = []
  try {
    return await deps.db.transaction(async (tx) => {
      const claim = await claimUnpublishedOutbox(tx, {
        topics: [MESSAGE_PUBLISH_TOPIC],
        limit: deps.batchSize,
        perTenant: deps.tenantRowsPerPass ?? deps.batchSize,
        skipIds: [...deps.skipIds],
      })
      const fresh = claim.rows
      const fairness = deps.fairness
      // One view of the set-aside tenants for the whole pass: a tenant unblocked mid-pass (a slot came
      // back) had its parked rows left out of this claim, so its fresh rows must not pass them now.
      const blocked = fairness ? fairness.parking.blockedKeys() : []
      const parkedClaim = fairness
        ? await claimDueParkedOutbox(tx, {
            topics: [MESSAGE_PUBLISH_TOPIC],
            limit: deps.batchSize,
            perKey: fairness.slots,
            skipKeys: blocked,
          })
        : { rows: [], cutKeys: new Set<string>() }
      const parked = parkedClaim.rows
      claimedIds = [...fresh, ...parked].map((row) => row.id)
      const plan = planJobs([...parked, ...fresh])
      if (plan.rejected.length > 0) await rejectRows(tx, plan.rejected, deps)
      const decided = fairness
        ? await admitFairLanes(fairness, plan.parsed, {
            parkedIds: new Set(parked.map((row) => row.id)),
            blocked: new Set(blocked),
            behind: tenantsBehind({ claim, parkedClaim, parsed: plan.parsed }),
          })
        : { publish: plan.parsed.map((entry) => ({ entry, delayMs: 0 })), park: [], stillParked: 0 }
      const jobs = laneJobs(decided.publish, deps.txBatchSize ?? 1)
      const published = decided.publish.map(({ entry }) => ({ ...messageRow(entry), lane: entry.lane }))
      // Each message's `queued` event is written with its row's mark, in this transaction, before the
      // add: a worker may take the job at once, and its events must not be dated before `queued`
      // (a failed add rolls the marks and events back with the transaction).
      await markOutboxPublished(tx, published)
      await addJobs(deps, jobs)
      await deps.hooks?.afterAddBulk?.(
        published.length,
        [...jobs.values()].flatMap((laneJobs) => laneJobs.map((job) => job.opts.jobId)),
      )
      await parkOutboxRows(tx, decided.park)
      if (decided.park.length > 0) deps.metrics?.outboxParked.inc(decided.park.length)
      logPublished(deps.logger, jobs)
      return {
        claimed: claimedIds.length,
        published: published.length,
        rejected: plan.rejected.length,
        ...(fairness ? { parked: decided.park.length, stillParked: decided.stillParked } : {}),
        ...(claim.cutTenants.size > 0 || parkedClaim.cutKeys.size > 0 ? { cut: true } : {}),
      }
    })
  } catch (error) {
    // Outside the rolled-back transaction, so the count survives; the rows themselves are untouched.
    await countOutboxAttempt(deps.db, claimedIds).catch(() => {})
    throw error
  }
}

function planJobs(rows: OutboxEntry[]) {
  const parsed: ParsedRow[] = []
  const rejected: { row: OutboxEntry; reason: string }[] = []
  for (const row of rows) {
    const event = messagePublishEvent.safeParse(row.payload)
    if (!event.success) {
      rejected.push({ row, reason: event.error.issues.map((issue) => issue.message).join('; ') })
      continue
    }
    const { lane, messageId, tenantId, generation } = event.data
    const job = sendJob({ lane, messageId, tenantId, generation })
    parsed.push({ row, lane, tenantId, generation, jobId: job.opts.jobId, job })
  }
  return { parsed, rejected }
}

/**
 * Jobs per lane in publishing order; a job whose turn is ahead waits delayed until then. On the
 * default lane a tenant's rows in this pass go in batch jobs of up to `txBatchSize` (`cutIntoJobs`):
 * each message still holds the lane slot it was admitted under (its own job's id, `laneSlots`), so a
 * batch counts as its messages against the tenant's slots, and its job id derives from its first
 * message and generation (`sendBatchJobId`), so a pass repeated after a crash adds nothing twice.
 */
function laneJobs(
  publish: { entry: ParsedRow; delayMs: number }[],
  txBatchSize: number,
): Map<Lane, LaneJob[]> {
  const jobs = new Map<Lane, LaneJob[]>()
  const rows = publish.map(({ entry, delayMs }) => ({ ...entry, delayMs }))
  for (const cut of cutIntoJobs(rows, txBatchSize)) {
    const [first] = cut
    if (!first) continue
    const job: LaneJob =
      cut.length === 1
        ? first.job
        : sendBatchJob({
            lane: 'default',
            tenantId: first.tenantId,
            messages: cut.map((row) => ({ messageId: row.job.data.messageId, generation: row.generation })),
          })
    const delayMs = batchDelayMs(cut)
    const delayed = delayMs > 0 ? { ...job, opts: { ...job.opts, delay: delayMs } } : job
    const laneJobs = jobs.get(first.lane)
    if (laneJobs) laneJobs.push(delayed)
    else jobs.set(first.lane, [delayed])
  }
  return jobs
}

/**
 * Bulk rows pass straight through (the pacer is their fairness); critical and default rows are
 * grouped per tenant and lane, in the tenant's order (parked rows by turn, then fresh rows by id), and
 * each group is admitted or parked as a whole (`decideTenantRows`).
 */
async function admitFairLanes(
  fairness: TransactionalFairness,
  rows: ParsedRow[],
  options: { parkedIds: Set<number>; blocked: Set<string>; behind: Set<string> },
) {
  const publish: { entry: ParsedRow; delayMs: number }[] = []
  const groups = new Map<string, TenantRows<ParsedRow>>()
  for (const entry of rows) {
    if (!FAIR_LANES.includes(entry.lane)) {
      publish.push({ entry, delayMs: 0 })
      continue
    }
    const key = laneParkKey(entry.lane, entry.tenantId)
    let group = groups.get(key)
    if (!group) {
      group = { lane: entry.lane, tenantId: entry.tenantId, parked: [], fresh: [] }
      groups.set(key, group)
    }
    if (options.parkedIds.has(entry.row.id)) group.parked.push(entry)
    else group.fresh.push(entry)
  }
  const decisions = await Promise.all(
    [...groups.values()].map((group) =>
      decideTenantRows(fairness, group, {
        admitFresh: !options.behind.has(laneParkKey(group.lane, group.tenantId)),
        blocked: options.blocked.has(laneParkKey(group.lane, group.tenantId)),
      }),
    ),
  )
  const park: (MessageOutboxRow & { parkKey: string; parkedUntilMs: number })[] = []
  let stillParked = 0
  for (const [index, group] of [...groups.values()].entries()) {
    const decision = decisions[index]
    if (!decision) continue
    publish.push(...decision.publish.map(({ row, delayMs }) => ({ entry: row, delayMs })))
    for (const { row, parkedUntilMs } of decision.park) {
      park.push({ ...messageRow(row), parkKey: laneParkKey(row.lane, row.tenantId), parkedUntilMs })
    }
    stillParked += Math.max(0, group.parked.length - decision.publish.length)
  }
  return { publish, park, stillParked }
}

/**
 * The tenant lanes (park keys) whose older rows this pass may not have seen, so their fresh rows wait
 * behind them: decided per tenant, so one tenant's cut never holds another's rows back. A tenant whose
 * fresh rows were cut (more than its share of the batch) keeps them behind its parked ones, and so
 * does one whose due parked rows were cut (more than its lane slots).
 */
function tenantsBehind(pass: {
  claim: FreshOutboxClaim
  parkedClaim: ParkedOutboxClaim
  parsed: ParsedRow[]
}): Set<string> {
  const behind = new Set(pass.parkedClaim.cutKeys)
  for (const entry of pass.parsed) {
    if (FAIR_LANES.includes(entry.lane) && pass.claim.cutTenants.has(entry.tenantId)) {
      behind.add(laneParkKey(entry.lane, entry.tenantId))
    }
  }
  return behind
}

function messageRow(entry: ParsedRow): MessageOutboxRow {
  return { id: entry.row.id, tenantId: entry.tenantId, messageId: entry.job.data.messageId }
}

/** When the relay should look again for parked rows (ms), if any are parked for later. */
export async function nextParkedTurnInMs(
  deps: Pick<PublishDeps, 'db' | 'fairness'>,
): Promise<number | undefined> {
  if (!deps.fairness) return undefined
  const rows = await nextParkedDueInMs(deps.db)
  const unblock = deps.fairness.parking.nextUnblockInMs()
  if (rows === undefined) return unblock
  return unblock === undefined ? rows : Math.min(rows, unblock)
}

async function rejectRows(
  tx: Transaction,
  rejected: { row: OutboxEntry; reason: string }[],
  deps: PublishDeps,
): Promise<void> {
  await countOutboxAttempt(
    tx,
    rejected.map(({ row }) => row.id),
  )
  if (deps.skipIds.size + rejected.length > MAX_SKIPPED) deps.skipIds.clear()
  for (const { row, reason } of rejected) {
    deps.skipIds.add(row.id)
    const messageId = typeof row.payload.messageId === 'string' ? row.payload.messageId : undefined
    deps.logger.error(
      {
        outboxId: row.id,
        topic: row.topic,
        tenantId: row.tenantId,
        messageId,
        attempts: row.attempts + 1,
        reason,
      },
      'outbox row has an unparseable payload; left for a relay that understands it',
    )
  }
}

/** One debug line per job (off at the default level), so a message can be traced through the relay. */
function logPublished(logger: Logger, jobs: Map<Lane, LaneJob[]>): void {
  if (!logger.isLevelEnabled('debug')) return
  for (const [lane, laneJobs] of jobs) {
    for (const job of laneJobs) {
      const messageIds = 'messageIds' in job.data ? job.data.messageIds : [job.data.messageId]
      for (const messageId of messageIds) {
        logger.debug(
          { tenantId: job.data.tenantId, messageId, lane, jobId: job.opts.jobId },
          'outbox row published as a lane job',
        )
      }
    }
  }
}

/** One addBulk per shard the batch touches (each shard is its own queue, possibly on its own node). */
async function addJobs(deps: PublishDeps, jobs: Map<Lane, LaneJob[]>): Promise<void> {
  const byShard = new Map<Pick<Queue, 'addBulk'>, LaneJob[]>()
  for (const [lane, laneJobs] of jobs) {
    for (const job of laneJobs) {
      const queue = deps.lanes.queueFor(lane, job.data.tenantId)
      const shardJobs = byShard.get(queue)
      if (shardJobs) shardJobs.push(job)
      else byShard.set(queue, [job])
    }
  }
  const adds = Promise.all([...byShard].map(([queue, shardJobs]) => queue.addBulk(shardJobs)))
  // After a timeout nobody awaits the adds any more; their late rejection must not go unhandled.
  adds.catch(() => {})
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`addBulk did not finish within ${deps.addTimeoutMs} ms`)),
      deps.addTimeoutMs,
    )
  })
  try {
    await Promise.race([adds, timeout])
  } finally {
    clearTimeout(timer)
  }
}
