import { enqueueOrGiveBack, freeCapacity } from './lane-release'
import type {
  BacklogTenant,
  BulkBacklogStore,
  BulkLane,
  DepthTarget,
  PacingLogger,
  PlannedTenant,
  ReleasedMessage,
  ReleasePlan,
  ReleasePlanner,
  ReleaseQuota,
} from './ports'

export interface ReleaseBulkBatchDeps {
  store: BulkBacklogStore
  lane: BulkLane
  planner: ReleasePlanner
  /** Jobs the lane may hold at most. */
  highWater: number
  /** The depth to fill to, under `highWater`; without it the lane is filled to `highWater`. */
  depthTarget?: DepthTarget
  /** How many jobs of each tenant its bucket refused since the last call; without it, none. */
  refusals?: (tenantIds: string[]) => Promise<Map<string, number>>
  clock: { now(): Date }
  logger: PacingLogger
}

export interface ReleaseOutcome {
  /** `full`: no free slot, or none any tenant's allowance could fill; `idle`: nothing released. */
  kind: 'released' | 'full' | 'idle'
  released: number
  /**
   * The backlog as read this tick, each tenant's rows counted up to one more than the tick's free
   * slots; null when the lane was full: not read.
   */
  backlog: { tenants: number; rows: number } | null
}

/**
 * One tick of the bulk pacer: free slots = depth target − the lane's depth; the plan shares them
 * over the tenants with backlog, each one's allowance less what its bucket refused since the last
 * tick; the rows are claimed (committed), then their jobs added in the plan's interleaved order.
 * No queue call runs inside a database transaction: a Redis that hangs must not hold row locks and a
 * pooled connection `idle in transaction`. If adding fails, the claimed rows go back to pending and
 * the error is thrown; a job that reached Redis anyway finds its row claimable (the send's claim
 * accepts pending rows) and its id is stable, so a later release adds nothing twice. A pacer that
 * dies between the claim and the add leaves `queued` rows without jobs, which the sweeper publishes.
 */
export async function releaseBulkBatch(deps: ReleaseBulkBatchDeps): Promise<ReleaseOutcome> {
  const nowMs = () => deps.clock.now().getTime()
  const capacity = await freeCapacity(deps, nowMs())
  if (capacity === 0) return { kind: 'full', released: 0, backlog: null }

  // One more than the free slots: no tenant can be given more this tick, and a tenant with more left
  // over than it could take must not look emptied to the planner (DRR resets an emptied tenant's
  // deficit). Counting up to `highWater` instead read rows in proportion to the backlog, every tick.
  const found = await deps.store.findBacklog({ cap: capacity + 1 })
  const backlog = { tenants: found.length, rows: found.reduce((sum, tenant) => sum + tenant.backlog, 0) }
  if (found.length === 0) return { kind: 'idle', released: 0, backlog }
  const tenants = await withRefusals(found, deps.refusals)
  const plan = deps.planner.plan({ tenants, capacity, nowMs: nowMs() })
  if (plan.order.length === 0) return { kind: 'full', released: 0, backlog }

  const quotas = [...plan.counts].map(([tenantId, count]) => ({ tenantId, count }))
  const released = await deps.store.claim(quotas)
  const jobs = inPlanOrder(released, plan)
  await enqueueOrGiveBack(deps, jobs, released)
  settleShortfalls(deps.planner, quotas, released)
  deps.depthTarget?.record(nowMs(), released.length)
  return { kind: released.length > 0 ? 'released' : 'idle', released: released.length, backlog }
}

async function withRefusals(
  backlog: BacklogTenant[],
  refusals: ReleaseBulkBatchDeps['refusals'],
): Promise<PlannedTenant[]> {
  if (!refusals) return backlog
  const refused = await refusals(backlog.map((tenant) => tenant.tenantId))
  return backlog.map((tenant) => {
    const count = refused.get(tenant.tenantId)
    return count === undefined ? tenant : { ...tenant, refusals: count }
  })
}

/** The rows in the plan's interleaved order, so no tenant's batch sits in front of everyone else's. */
export function inPlanOrder(released: readonly ReleasedMessage[], plan: ReleasePlan): ReleasedMessage[] {
  const byTenant = new Map<string, ReleasedMessage[]>()
  for (const row of released) {
    const list = byTenant.get(row.tenantId)
    if (list) list.push(row)
    else byTenant.set(row.tenantId, [row])
  }
  const ordered: ReleasedMessage[] = []
  for (const tenantId of plan.order) {
    const row = byTenant.get(tenantId)?.shift()
    if (row) ordered.push(row)
  }
  return ordered
}

/** A tenant that got fewer rows than planned (held by another claimer, or gone) keeps the rest. */
function settleShortfalls(
  planner: ReleasePlanner,
  quotas: readonly ReleaseQuota[],
  released: readonly ReleasedMessage[],
): void {
  const releasedBy = new Map<string, number>()
  for (const row of released) releasedBy.set(row.tenantId, (releasedBy.get(row.tenantId) ?? 0) + 1)
  for (const { tenantId, count } of quotas) {
    const got = releasedBy.get(tenantId) ?? 0
    if (got < count) planner.settle({ tenantId, planned: count, released: got })
  }
}
