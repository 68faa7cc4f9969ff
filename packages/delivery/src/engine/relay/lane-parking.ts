import type { Lane } from '@fairlane/core'
import { type BucketPlan, enforcedPlan, type LaneAdmission, laneParkKey } from '@fairlane/fairness'

/**
 * Fairness of the transactional lanes at the relay: park the tenant, not its jobs. A tenant's rows
 * enter the critical/default lane only while it holds fewer than `slots` jobs there and only as fast
 * as its plan (turns within `horizonMs`); the rest stay in PostgreSQL, parked with their estimated
 * turn, and the relay skips a tenant it knows is full until a slot is given back or its turn comes.
 * So another tenant's login code waits behind at most `slots` jobs of a flooding tenant, whatever its
 * flood, and the flood costs Redis one script call per tenant per pass instead of a refusal per job.
 */
export interface TransactionalFairness {
  admission: LaneAdmission
  /** TRANSACTIONAL_RATE_PER_SEC / _BURST: the plan the lane workers' buckets enforce for a tenant without its own. */
  plan: BucketPlan
  /**
   * The tenant's own transactional plan (its `tx_rate_per_sec` / `tx_burst`, the platform's filling what
   * it leaves open), as the lane workers' gate reads it; left out, every tenant has `plan`.
   */
  planFor?: (tenantId: string) => Promise<BucketPlan>
  /** TRANSACTIONAL_TENANT_SLOTS: a tenant's jobs waiting, delayed or running in one lane at once. */
  slots: number
  /** TRANSACTIONAL_SLOT_TTL_MS: a slot whose job never gave it back (a killed worker) expires after this. */
  slotTtlMs: number
  /** TRANSACTIONAL_HORIZON_MS: only turns due within this are published (with a delay to the turn). */
  horizonMs: number
  /** Without a slot freed in this process (another worker's), a full tenant is looked at again after this. */
  slotRetryMs: number
  parking: ParkingState
}

export const FAIR_LANES: readonly Lane[] = ['critical', 'default']

/** The rows of one tenant in one transactional lane, as claimed in one pass. */
export interface TenantRows<Row> {
  lane: Lane
  tenantId: string
  /** Parked rows whose turn came, in their order (`parked_until`, id). */
  parked: Row[]
  /** Rows never parked, by id. */
  fresh: Row[]
}

export interface TenantDecision<Row> {
  /** Rows to publish now, in order, each with the delay to its turn. */
  publish: { row: Row; delayMs: number }[]
  /** Fresh rows to park, with their turns (ms since the epoch). Parked rows not published stay as they are. */
  park: { row: Row; parkedUntilMs: number }[]
}

/**
 * Decides one tenant's rows: one admission call (slots + turns), then blocks the tenant in this
 * relay's memory when it cannot take more (full slots: until one is given back; turns: until the next
 * is within the horizon), so the next passes do not read its parked rows again in vain.
 */
export async function decideTenantRows<Row extends { jobId: string }>(
  fairness: TransactionalFairness,
  group: TenantRows<Row>,
  /** `blocked`: the tenant was set aside when the pass claimed its rows (its parked rows were not claimed). */
  options: { admitFresh: boolean; blocked: boolean },
): Promise<TenantDecision<Row>> {
  const key = laneParkKey(group.lane, group.tenantId)
  const { blocked } = options
  const ordered = [...group.parked, ...group.fresh]
  const result = await fairness.admission.admit(key, {
    jobIds: ordered.map((row) => row.jobId),
    // A blocked tenant's parked rows were not claimed; its fresh rows only get their turns.
    parkedCount: blocked ? 0 : group.parked.length,
    admitFresh: options.admitFresh && !blocked,
    plan: relayPlan(fairness.planFor ? await fairness.planFor(group.tenantId) : fairness.plan),
    maxSlots: fairness.slots,
    slotTtlMs: fairness.slotTtlMs,
    horizonMs: fairness.horizonMs,
  })
  const admitted = result.delaysMs.length
  const publish = result.delaysMs.map((delayMs, index) => ({ row: ordered[index] as Row, delayMs }))
  const freshLeft = ordered.slice(Math.max(admitted, group.parked.length))
  const turns = result.parkTurnsMs(freshLeft.length)
  const park = freshLeft.map((row, index) => ({ row, parkedUntilMs: turns[index] as number }))
  if (result.stoppedBy === 'slots') fairness.parking.block(key, fairness.slotRetryMs)
  if (result.stoppedBy === 'turns') fairness.parking.block(key, Math.max(1, result.retryInMs))
  return { publish, park }
}

/**
 * The turns the relay hands out: the lane worker's bucket (`enforcedPlan`) less another hand-off
 * reserve of burst. The worker's bucket counts from its own first take, which comes a little after
 * the relay's first turn; later jobs that run closer to their turns would then find it a few ms short
 * and be deferred (and overtaken). The reserve lets the worker's bucket absorb that lag.
 */
export function relayPlan(plan: BucketPlan): BucketPlan {
  return enforcedPlan(enforcedPlan(plan))
}

export interface ParkingState {
  isBlocked(key: string): boolean
  block(key: string, forMs: number): void
  /** A slot of this tenant was given back: look at it again now. True if it was blocked. */
  unblock(key: string): boolean
  /** Tenants blocked now (their parked rows are not claimed). */
  blockedKeys(): string[]
  /** Until the first block ends; undefined with none. */
  nextUnblockInMs(): number | undefined
}

/** This relay's memory of blocked tenants; only a shortcut: losing it costs a pass, never a row. */
export function createParkingState(now: () => number = Date.now): ParkingState {
  const blockedUntil = new Map<string, number>()
  const prune = () => {
    const at = now()
    for (const [key, until] of blockedUntil) if (until <= at) blockedUntil.delete(key)
  }
  return {
    isBlocked(key) {
      const until = blockedUntil.get(key)
      return until !== undefined && until > now()
    },
    block(key, forMs) {
      blockedUntil.set(key, now() + forMs)
    },
    unblock(key) {
      return blockedUntil.delete(key)
    },
    blockedKeys() {
      prune()
      return [...blockedUntil.keys()]
    },
    nextUnblockInMs() {
      prune()
      if (blockedUntil.size === 0) return undefined
      return Math.max(0, Math.min(...blockedUntil.values()) - now())
    },
  }
}
