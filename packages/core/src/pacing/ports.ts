/**
 * What `releaseBulkBatch` needs from the outside, as interfaces: PostgreSQL's pending bulk rows
 * (`@fairlane/db/queries/pacer`), the bulk lane's queue and the tenants' buckets (Redis, in the
 * worker), and the fairness planner (weighted deficit round robin, `@fairlane/fairness`).
 */

/** A tenant with pending bulk mail, its plan, and its backlog counted up to a cap. */
export interface BacklogTenant {
  tenantId: string
  ratePerSec: number
  burst: number
  weight: number
  /** Pending bulk rows, counted up to the cap asked for: never more are released in one tick. */
  backlog: number
}

/** A pending bulk row the claim made `queued`: its job is `(messageId, generation)`. */
export interface ReleasedMessage {
  messageId: string
  tenantId: string
  generation: number
  /** Its `created_at` as PostgreSQL printed it, where the store says: with the id, the claim's order. */
  createdAt?: string
}

/** The last row a tenant's claims took, in the claim's (created_at, id) order. */
export interface ClaimedUpTo {
  createdAt: string
  messageId: string
}

export interface ReleaseQuota {
  tenantId: string
  count: number
  /**
   * Only rows after this one: the rows before it were claimed, and their backlog-index entries stay
   * until VACUUM (or, while an older snapshot is open anywhere, until it ends), so a claim from the
   * start would walk every row the tenant released since (3,000 entries, 10–25 ms for Big). Absent:
   * from the oldest row.
   */
  after?: ClaimedUpTo | null
}

/** The bulk lane's queue. */
export interface BulkLane {
  /**
   * Messages it holds now: in its waiting, active, delayed and prioritized jobs (a batch job counts
   * the messages it carries), so the depth target keeps meaning messages whatever BULK_BATCH_SIZE is.
   */
  depth(): Promise<number>
  /**
   * One send job per row, added in this order (served first in, first out); a job's id is fixed by
   * its row's message and generation, so adding one twice adds nothing. (MX mode: one job per message.)
   */
  enqueue(released: readonly ReleasedMessage[]): Promise<void>
  /**
   * One job per batch: a batch of one is the message's own send job (as `enqueue`), a longer one a
   * batch job whose id is fixed by its first message and generation. Batches marked `fresh` are taken
   * before the others, first in first out within each (in this order when added together).
   */
  enqueueBatches(batches: readonly ReleasedBatch[]): Promise<void>
}

/**
 * Released rows that go out as one job, in the plan's order: one tenant's, or (`fresh` only) the
 * first turns of several new flows, each row with its own `tenantId`.
 */
export interface ReleasedBatch {
  /** The tenant of every row; of a batch of several tenants' first turns, the first row's. */
  tenantId: string
  messages: ReleasedMessage[]
  /**
   * A new flow's first turn (fq_codel's new-flows rule): its job is taken before the jobs already
   * waiting for the old flows (after earlier new flows'), so a tenant that just became active waits
   * for a free worker, not for the lane's whole depth. Absent: an old flow's, first in first out.
   */
  fresh?: true
}

export interface ReleasePlan {
  /** One tenant id per slot, in the order to enqueue them: the tenants interleaved. */
  order: string[]
  counts: Map<string, number>
  /** Per tenant, how many of its first slots in `order` are a new flow's turn (`ReleasedBatch.fresh`). */
  fresh?: ReadonlyMap<string, number>
}

/** How deep the lane is filled: a fraction of a second of what it sends, read from the releases. */
export interface DepthTarget {
  depth(atMs: number): number
  record(atMs: number, count: number): void
  /**
   * The depth before the bulk governor's cut, when one cuts it: batches are sized from it, so a
   * governed lane holds fewer batches rather than smaller ones (a job costs BullMQ about 33 Redis
   * commands whatever it carries, so smaller batches would spend the CPU the cut was meant to free).
   */
  ungoverned?(atMs: number): number
}

export interface PacingLogger {
  warn(fields: Record<string, unknown>, message: string): void
}

/** A tenant of the active set (tenants with pending bulk mail) with its plan. */
export interface ActiveTenant {
  tenantId: string
  ratePerSec: number
  burst: number
  weight: number
  /** The set row's stamp as read: a tenant leaves the set only while it is still this. */
  seq: number
}

export interface ActiveTenantRead {
  tenants: ActiveTenant[]
  /** Where the next read of changes starts (opaque: PostgreSQL's snapshot xmin). */
  cursor: string
}

export interface LeavingTenant {
  tenantId: string
  seq: number
}

/** The pending bulk rows in PostgreSQL, with the set of tenants that have some kept beside them. */
export interface ActiveBulkStore {
  /** `after` null: the whole active set; else the tenants added or stamped since that read. */
  readActive(input: { after: string | null }): Promise<ActiveTenantRead>
  /** Tenants found empty leave the set, unless rows were added meanwhile; answers those that left. */
  leaveIfEmpty(tenants: readonly LeavingTenant[]): Promise<string[]>
  claim(quotas: readonly ReleaseQuota[]): Promise<ReleasedMessage[]>
  giveBack(released: readonly ReleasedMessage[]): Promise<number>
}

/** `ReleasePlan` and how many tenants the planner looked at to make it. */
export interface ActiveReleasePlan extends ReleasePlan {
  visited: number
}

/**
 * The fairness rule over the active set kept in the leader's memory (`createActiveFlows`,
 * `@fairlane/fairness`): tenants join from the set's changes, leave when a claim empties them, and a
 * tick visits only the tenants it releases to.
 */
export interface ActiveFlowPlanner {
  readonly size: number
  /** Tenants read from the set's changes: an unknown one is a new flow, a known one gets its new plan. */
  activate(tenants: readonly ActiveTenant[], nowMs: number): void
  /** The whole set as read: tenants it does not list leave. */
  replaceAll(tenants: readonly ActiveTenant[], nowMs: number): void
  deactivate(tenantId: string, nowMs: number): void
  seqOf(tenantId: string): number | undefined
  /** Tenants released to within `withinMs`: the only ones whose buckets can have refused jobs since. */
  recentlyReleased(nowMs: number, withinMs: number): string[]
  /** Jobs each tenant's bucket refused since the last call: spent from its allowance. */
  refuse(refused: ReadonlyMap<string, number>, nowMs: number): void
  /** `newFlowsOnly`: only tenants that just joined get turns (the lane is at its depth target). */
  plan(input: { capacity: number; nowMs: number; newFlowsOnly?: boolean }): ActiveReleasePlan
  settle(input: { tenantId: string; planned: number; released: number }): void
}
