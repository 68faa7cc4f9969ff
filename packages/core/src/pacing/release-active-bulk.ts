import { enqueueOrGiveBack, fillTarget, inPlanBatches, slotBatchSize } from './lane-release'
import type {
  ActiveBulkStore,
  ActiveFlowPlanner,
  BulkLane,
  ClaimedUpTo,
  DepthTarget,
  PacingLogger,
  ReleasedMessage,
  ReleaseQuota,
} from './ports'

/** Where the leader's copy of the active set stands: reset it (`cursor: null`) when leadership is taken. */
export interface ActiveSetSync {
  cursor: string | null
  /** When the whole set was last read. */
  readAtMs: number
  /**
   * Per tenant, the last row its claims took: the next claim starts after it (`ReleaseQuota.after`).
   * Sound because a row becomes pending only with a stamp of its tenant (migration 0028's triggers):
   * a tenant in a change read, or in a whole read, starts from its oldest row again, and so does one
   * a claim found short (a row skipped while another claimer held it is then reached too).
   */
  claimedUpTo: Map<string, ClaimedUpTo>
}

export function createActiveSetSync(): ActiveSetSync {
  return { cursor: null, readAtMs: Number.NEGATIVE_INFINITY, claimedUpTo: new Map() }
}

export interface ReleaseActiveBulkDeps {
  store: ActiveBulkStore
  lane: BulkLane
  planner: ActiveFlowPlanner
  sync: ActiveSetSync
  /** Messages the lane may hold at most. */
  highWater: number
  depthTarget?: DepthTarget
  /**
   * BULK_BATCH_SIZE: each tenant's released rows go out in jobs of at most this many (default 1, one
   * job per message). A batch is never waited for: a tenant released 3 rows gets a job of 3 now.
   */
  batchSize?: number
  /**
   * The bulk lane's worker slots (its concurrency): a batch is at most the fill target over them, so
   * no slot waits while another holds a second batch (`slotBatchSize`).
   */
  workerSlots?: number
  /**
   * Messages beyond the depth target the lane may take for new flows' first turns (default
   * `DEFAULT_NEW_FLOW_ROOM`): a tenant that just became active is released in the next tick even
   * while the old flows keep the lane at its target, rather than a tick or more later, when a batch
   * has finished. 0 makes new flows wait for room like everyone else.
   */
  newFlowRoom?: number
  /** How many jobs of each tenant its bucket refused since the last call; without it, none. */
  refusals?: (tenantIds: string[]) => Promise<Map<string, number>>
  /** Tenants released to within this are asked for refusals (about the horizon: jobs live that long). */
  refusalWindowMs: number
  /**
   * The whole set is read again this often: it picks up plan changes of tenants that stay active
   * (a change read carries the plan only of tenants stamped since) and repairs anything missed.
   */
  rereadEveryMs: number
  clock: { now(): Date }
  logger: PacingLogger
}

export interface ActiveReleaseOutcome {
  kind: 'released' | 'full' | 'idle'
  released: number
  /** Tenants in the active set after the tick. */
  activeTenants: number
  /** Tenants the planner looked at: follows `released`, not the active set. */
  visited: number
  /** Tenants that left the set because a claim found them empty. */
  left: number
}

/** A second plan and claim in the same tick fill the slots the first left to tenants found empty. */
const MAX_PASSES = 2

/**
 * Without `newFlowRoom`: first turns of newcomers a full lane may still take, in messages. Enough for
 * the newcomers of a few ticks at once: with 83 tenants a second becoming due (`bench:fairness
 * --tenants 10000 --due-spread-seconds 120`) and a tick every ~160 ms, 16 left the newcomers' room at
 * about what arrived, and a backlog of first turns grew in the pacer (first release after pending
 * p50 2.2 s; with 64, 0.75 s, one run each).
 */
export const DEFAULT_NEW_FLOW_ROOM = 64

/**
 * One tick of the bulk pacer over the active set. The lane's depth, the set's changes since the last
 * tick and the buckets' refusals are read at once; free slots = depth target − depth. New tenants get
 * their first turn now, ahead of the old ones, and still do when the lane is at its target (up to
 * `newFlowRoom` beyond it); the plan visits tenants only until the slots are given out; the rows are
 * claimed (committed), then their jobs added in the plan's order (`enqueueOrGiveBack`: no queue call
 * inside a transaction; a failed add gives the rows back). A tenant the claim gave fewer rows than
 * planned may be empty: it leaves the set if it is (`leaveIfEmpty`, beside the add), and the slots it
 * left go to a second plan in the same tick.
 */
export async function releaseActiveBulk(deps: ReleaseActiveBulkDeps): Promise<ActiveReleaseOutcome> {
  const nowMs = () => deps.clock.now().getTime()
  const target = fillTarget(deps, nowMs())
  // Three independent reads, at once: the lane's depth, the set's changes and the buckets' refusals.
  const [depth] = await Promise.all([
    deps.lane.depth(),
    syncActiveSet(deps, nowMs()),
    applyRefusals(deps, nowMs()),
  ])
  if (deps.planner.size === 0) {
    return { kind: 'idle', released: 0, activeTenants: 0, visited: 0, left: 0 }
  }
  // At its target the lane still takes new flows' first turns, up to `newFlowRoom` beyond it.
  const newFlowsOnly = depth >= target
  let capacity = newFlowsOnly
    ? Math.max(0, target + (deps.newFlowRoom ?? DEFAULT_NEW_FLOW_ROOM) - depth)
    : target - depth
  if (capacity === 0) {
    return { kind: 'full', released: 0, activeTenants: deps.planner.size, visited: 0, left: 0 }
  }
  const batchSize = slotBatchSize({
    batchSize: deps.batchSize ?? 1,
    fillTarget: Math.min(deps.highWater, deps.depthTarget?.ungoverned?.(nowMs()) ?? target),
    ...(deps.workerSlots === undefined ? {} : { workerSlots: deps.workerSlots }),
  })

  let released = 0
  let visited = 0
  let left = 0
  for (let pass = 0; pass < MAX_PASSES && capacity > 0; pass++) {
    const plan = deps.planner.plan({ capacity, nowMs: nowMs(), ...(newFlowsOnly ? { newFlowsOnly } : {}) })
    visited += plan.visited
    if (plan.order.length === 0) break
    const quotas = [...plan.counts].map(([tenantId, count]) => ({
      tenantId,
      count,
      after: deps.sync.claimedUpTo.get(tenantId) ?? null,
    }))
    const claimed = await deps.store.claim(quotas)
    noteClaimedUpTo(deps.sync.claimedUpTo, claimed)
    released += claimed.length
    capacity -= claimed.length
    const short = settleShortfalls(deps.planner, quotas, claimed)
    for (const tenantId of short) deps.sync.claimedUpTo.delete(tenantId)
    // The claim has committed: the jobs' add (Redis) and the emptied tenants' leave (PostgreSQL) are
    // independent, and run at once.
    const [enqueued, leaving] = await Promise.allSettled([
      enqueueOrGiveBack(deps, { batches: inPlanBatches(claimed, plan, batchSize) }, claimed),
      leaveIfEmpty(deps, short, nowMs()),
    ])
    if (leaving.status === 'fulfilled') left += leaving.value
    if (enqueued.status === 'rejected') throw enqueued.reason
    if (leaving.status === 'rejected') throw leaving.reason
    if (short.length === 0) break
  }
  deps.depthTarget?.record(nowMs(), released)
  const kind = released > 0 ? 'released' : deps.planner.size === 0 ? 'idle' : 'full'
  return { kind, released, activeTenants: deps.planner.size, visited, left }
}

async function syncActiveSet(deps: ReleaseActiveBulkDeps, nowMs: number): Promise<void> {
  const { sync } = deps
  if (sync.cursor === null || nowMs - sync.readAtMs >= deps.rereadEveryMs) {
    const whole = await deps.store.readActive({ after: null })
    deps.planner.replaceAll(whole.tenants, nowMs)
    sync.claimedUpTo.clear()
    sync.cursor = whole.cursor
    sync.readAtMs = nowMs
    return
  }
  const changes = await deps.store.readActive({ after: sync.cursor })
  deps.planner.activate(changes.tenants, nowMs)
  for (const tenant of changes.tenants) sync.claimedUpTo.delete(tenant.tenantId)
  sync.cursor = changes.cursor
}

async function applyRefusals(deps: ReleaseActiveBulkDeps, nowMs: number): Promise<void> {
  if (!deps.refusals) return
  const recent = deps.planner.recentlyReleased(nowMs, deps.refusalWindowMs)
  if (recent.length === 0) return
  deps.planner.refuse(await deps.refusals(recent), nowMs)
}

/** Each tenant's last claimed row, by (created_at, id): rows without `createdAt` leave no cursor. */
function noteClaimedUpTo(claimedUpTo: Map<string, ClaimedUpTo>, claimed: readonly ReleasedMessage[]): void {
  for (const row of claimed) {
    if (row.createdAt === undefined) continue
    const reached = { createdAt: row.createdAt, messageId: row.messageId }
    const known = claimedUpTo.get(row.tenantId)
    if (known && compareRows(known, reached) >= 0) continue
    claimedUpTo.set(row.tenantId, reached)
  }
}

/**
 * PostgreSQL's (created_at, id) order: the timestamps are printed at one fixed width in UTC and the
 * ids are lower-case uuids, so both compare as text.
 */
function compareRows(a: ClaimedUpTo, b: ClaimedUpTo): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1
  return a.messageId === b.messageId ? 0 : a.messageId < b.messageId ? -1 : 1
}

/** Tenants that got fewer rows than planned keep the rest of their allowance; they are returned. */
function settleShortfalls(
  planner: ActiveFlowPlanner,
  quotas: readonly ReleaseQuota[],
  released: readonly ReleasedMessage[],
): string[] {
  const releasedBy = new Map<string, number>()
  for (const row of released) releasedBy.set(row.tenantId, (releasedBy.get(row.tenantId) ?? 0) + 1)
  const short: string[] = []
  for (const { tenantId, count } of quotas) {
    const got = releasedBy.get(tenantId) ?? 0
    if (got >= count) continue
    planner.settle({ tenantId, planned: count, released: got })
    short.push(tenantId)
  }
  return short
}

async function leaveIfEmpty(
  deps: ReleaseActiveBulkDeps,
  tenantIds: string[],
  nowMs: number,
): Promise<number> {
  if (tenantIds.length === 0) return 0
  const leaving = tenantIds.flatMap((tenantId) => {
    const seq = deps.planner.seqOf(tenantId)
    return seq === undefined ? [] : [{ tenantId, seq }]
  })
  const gone = await deps.store.leaveIfEmpty(leaving)
  for (const tenantId of gone) {
    deps.planner.deactivate(tenantId, nowMs)
    deps.sync.claimedUpTo.delete(tenantId)
  }
  return gone.length
}
