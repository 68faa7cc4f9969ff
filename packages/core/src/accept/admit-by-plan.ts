import type { Lane } from '../domain/lanes'
import { AppError } from '../errors/app-error'
import { type OwnLanePlan, type TenantPlans, tenantAcceptPlan } from './tenant-plans'

/**
 * Admission at the API edge follows the plan: a tenant may have accepted, on each transactional
 * lane, at most what its lane plan sends within that lane's horizon (`ACCEPT_HORIZON_MS`); beyond it
 * the API answers 429 (`details.limit: "plan"`) with the wait until there is room. A login code that
 * would arrive a minute late is worse than a refusal the caller can see.
 *
 * The backlog is not counted (+1 at accept, −1 at sent/failed/cancelled/suppressed…): a counter that
 * misses one of those ends, or a process killed between, drifts for good and refuses a tenant forever.
 * It is an "accept bucket" instead, a GCRA bucket holding rate × horizon + burst mails that refills at
 * the plan's rate: what was accepted minus what the plan could have sent since. It cannot drift (idle,
 * it is full again after the horizon), and it never refuses a tenant its lane could still serve in
 * time; it can only be too kind when the lane sends slower than its plan (an SMTP outage), and then the
 * relay's parking still keeps the flood off the lane.
 */

export type TransactionalLane = Exclude<Lane, 'bulk'>

/** A tenant's transactional lane plan: what its lane worker's bucket lets through (mails/s, burst). */
export interface LanePlan {
  ratePerSec: number
  burst: number
}

/** Per lane: the tenant's plan and how long a mail accepted now may wait for its turn at most. */
export type AcceptPlan = Record<TransactionalLane, { plan: LanePlan; horizonMs: number }>

/** An accept bucket: refills at `ratePerSec`, holds at most `capacity` accepted mails. */
export interface AcceptBucketSize {
  ratePerSec: number
  capacity: number
}

export type PlanDecision = { allowed: true } | { allowed: false; retryAfterMs: number }

/** Where the buckets live (Redis, shared by every web process); `take` spends one, `peek` only looks. */
export interface AcceptBuckets {
  /** Spends `cost` mails' worth (default 1; at most the bucket's capacity: see `messageCost`). */
  take(bucket: string, size: AcceptBucketSize, cost?: number): Promise<PlanDecision>
  peek(bucket: string, size: AcceptBucketSize): Promise<PlanDecision>
}

export interface PlanAdmissionDeps {
  /** The platform's plan (TRANSACTIONAL_RATE_PER_SEC / _BURST, ACCEPT_HORIZON_MS): a tenant's without its own. */
  plan: AcceptPlan
  buckets: AcceptBuckets
  /** Each tenant's own transactional plan (cached per process); left out, every tenant has `plan`. */
  tenantPlans?: TenantPlans
}

/**
 * The accept plan that holds `tenantId`: `own` when the caller already read it (the API key's row
 * carries it), else the tenant's from `tenantPlans`, else the platform's. A bucket's size follows the
 * plan, so a changed plan applies to the same bucket at once (its debt carries over).
 */
export async function acceptPlanFor(
  tenantId: string,
  deps: PlanAdmissionDeps,
  own?: OwnLanePlan | null,
): Promise<AcceptPlan> {
  if (own !== undefined) return tenantAcceptPlan(deps.plan, own)
  if (!deps.tenantPlans) return deps.plan
  return tenantAcceptPlan(deps.plan, (await deps.tenantPlans.planOf(tenantId)).transactional)
}

/** What the plan sends within the horizon, plus the burst it may send at once. */
export function acceptBucketSize(plan: LanePlan, horizonMs: number): AcceptBucketSize {
  return {
    ratePerSec: plan.ratePerSec,
    capacity: Math.max(1, Math.floor((plan.ratePerSec * horizonMs) / 1000) + plan.burst),
  }
}

/** `<lane>:<tenantId>`, as the relay names a tenant's lane (`laneParkKey`). */
export function acceptBucketName(lane: TransactionalLane, tenantId: string): string {
  return `${lane}:${tenantId}`
}

/** The lane whose bucket holds the fewest mails: the first to refuse a tenant that floods. */
export function tightestLane(plan: AcceptPlan): TransactionalLane {
  const size = (lane: TransactionalLane) => acceptBucketSize(plan[lane].plan, plan[lane].horizonMs).capacity
  return size('critical') <= size('default') ? 'critical' : 'default'
}

/**
 * Before the body is read: the lane is named only inside it (the template), so this looks (without
 * taking) at the tenant's tightest lane and refuses when that one is full. A flood is then refused
 * for one Redis call, its body never read or parsed. The cost: while a tenant's tightest lane is over
 * its horizon, its mail for the other lane is refused too (for the seconds the Retry-After says);
 * that tenant is sending more than its plan delivers in time, and the other lane is no login code.
 */
export async function checkPlanBeforeBody(
  tenantId: string,
  deps: PlanAdmissionDeps,
  own?: OwnLanePlan | null,
): Promise<void> {
  const accept = await acceptPlanFor(tenantId, deps, own)
  const lane = tightestLane(accept)
  const { plan, horizonMs } = accept[lane]
  const decision = await deps.buckets.peek(
    acceptBucketName(lane, tenantId),
    acceptBucketSize(plan, horizonMs),
  )
  if (!decision.allowed) throw planRefusal(lane, decision.retryAfterMs)
}

/** Once the lane is known (the body parsed): one mail of the tenant's on that lane, or a 429. */
export async function takePlanAllowance(
  input: { tenantId: string; lane: Lane; own?: OwnLanePlan | null; cost?: number },
  deps: PlanAdmissionDeps,
): Promise<void> {
  if (input.lane === 'bulk') return
  const accept = await acceptPlanFor(input.tenantId, deps, input.own)
  const { plan, horizonMs } = accept[input.lane]
  const size = acceptBucketSize(plan, horizonMs)
  const decision = await deps.buckets.take(
    acceptBucketName(input.lane, input.tenantId),
    size,
    bucketCost(input.cost, size),
  )
  if (!decision.allowed) throw planRefusal(input.lane, decision.retryAfterMs)
}

function planRefusal(lane: TransactionalLane, retryAfterMs: number): AppError {
  return new AppError(
    'rate_limited',
    `This tenant has accepted more ${lane} mail than its plan sends in time; retry later`,
    { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)), limit: 'plan' },
  )
}

/**
 * What a message takes from its accept bucket: its `messageCost` (one per started 256 KB), never more
 * than the bucket holds, so a large message on a small plan waits for a full bucket instead of being
 * refused for ever.
 */
export function bucketCost(cost: number | undefined, size: AcceptBucketSize): number {
  if (cost === undefined || !Number.isFinite(cost) || cost < 1) return 1
  return Math.min(Math.ceil(cost), size.capacity)
}

/**
 * One step of the accept bucket (GCRA), pure, so the Redis script and the in-memory fallback agree:
 * `tatMs` is the bucket's theoretical arrival time (null: full). A mail of `cost` fits while the
 * bucket's debt (`tat - now`) leaves room for `cost` more; taking moves `tat` `cost` intervals on, a
 * refusal moves nothing.
 */
export function acceptBucketStep(
  tatMs: number | null,
  nowMs: number,
  size: AcceptBucketSize,
  cost = 1,
): { allowed: boolean; tatMs: number; retryAfterMs: number } {
  const interval = 1000 / size.ratePerSec
  const from = tatMs === null || tatMs < nowMs ? nowMs : tatMs
  const wait = from - nowMs - (size.capacity - cost) * interval
  if (wait <= 0) return { allowed: true, tatMs: from + cost * interval, retryAfterMs: 0 }
  return { allowed: false, tatMs: from, retryAfterMs: wait }
}
