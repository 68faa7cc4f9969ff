import { allowanceCap, refilledAllowance } from './release-allowance'

/**
 * The pacer's plan for one tick: how many pending rows of each tenant to release into the bulk queue.
 * Pure: the leader passes what it read (backlogs, free queue slots, the time) and keeps the returned
 * state for the next tick; reading and releasing rows is its business.
 *
 * Weighted deficit round robin. Each round every tenant with backlog and allowance gets its weight
 * added to its deficit and emits whole slots while the deficit reaches 1; rounds go on while free
 * slots remain, so a tenant alone gets all its allowance permits (work-conserving). A tenant that runs
 * out of backlog or allowance leaves and its deficit resets: credit is never banked while idle or
 * rate-limited, so coming back does not let a tenant jump everyone else.
 */

export interface PacerTenant {
  tenantId: string
  /** Share of the free slots relative to other backlogged tenants; an integer, at least 1. */
  weight: number
  /** Sends per second the tenant's plan allows; releases never outrun it by more than one horizon. */
  ratePerSec: number
  /** Pending rows known (perhaps capped by the query), at least 0. */
  backlog: number
  /**
   * The tenant's bucket burst: releases then never run further ahead of its rate than its bucket can
   * take at once, so with the pacer in front the bucket rarely has to defer a job.
   */
  burst?: number
  /**
   * Jobs of this tenant its bucket refused since the last tick. Each was released against a token the
   * bucket did not have then, and will take a later one at its deferral slot: that token is spent
   * from the allowance now. Without this the pacer and the bucket each run at the rate with the
   * refused jobs in between for good, every tick's first arrivals deferred behind the last tick's.
   */
  refusals?: number
}

export interface PacerOptions {
  /** How far ahead of its send rate a tenant's releases may run; sets the allowance cap. */
  horizonMs: number
}

export interface ReleasePlan {
  /** One tenant id per released slot, in the order to enqueue them: rounds interleave the tenants. */
  order: string[]
  counts: Map<string, number>
}

/** The leader's memory between ticks. Opaque: only this module reads it. */
export interface PacerState {
  readonly kind: 'pacer-state'
}

/** Forgotten after this long unseen (once its allowance is full again), so memory stays bounded. */
export const FORGET_TENANT_AFTER_MS = 10 * 60_000
/** Looking for tenants to forget scans them all, so it is done now and then, not every tick. */
const FORGET_SCAN_EVERY_MS = 10_000

interface TenantMemory {
  allowance: number
  refilledAtMs: number
  seenAtMs: number
  ratePerSec: number
  cap: number
  deficit: number
}

interface PacerMemory {
  tenants: Map<string, TenantMemory>
  /** A tenant whose turn the last tick cut short (no slots left): it finishes that turn first. */
  resumeTenantId: string | null
  /** Otherwise the next tick starts with the tenant after this one, so capacity 1 per tick alternates. */
  lastServedTenantId: string | null
  scannedAtMs: number
}

interface Contender {
  tenantId: string
  weight: number
  memory: TenantMemory
  allowanceLeft: number
  backlogLeft: number
}

const memories = new WeakMap<PacerState, PacerMemory>()

export function createPacerState(): PacerState {
  const state: PacerState = Object.freeze({ kind: 'pacer-state' })
  memories.set(state, {
    tenants: new Map(),
    resumeTenantId: null,
    lastServedTenantId: null,
    scannedAtMs: Number.NEGATIVE_INFINITY,
  })
  return state
}

/** Tenants the state remembers: for a gauge, and to see that forgetting works. */
export function trackedTenantCount(state: PacerState): number {
  return memoryOf(state).tenants.size
}

/**
 * Plans one tick. Never more for a tenant than its whole allowance, its backlog or the free slots;
 * never more in total than `capacity`. The planned rows are taken from the allowance now; call
 * `settleRelease` when fewer were actually released. O(capacity + tenants · log tenants).
 */
export function planRelease(
  state: PacerState,
  input: { tenants: PacerTenant[]; capacity: number; nowMs: number },
  options: PacerOptions,
): ReleasePlan {
  if (!(options.horizonMs > 0)) throw new RangeError(`horizonMs must be positive, got ${options.horizonMs}`)
  const memory = memoryOf(state)
  forgetIdleTenants(memory, input.nowMs)
  const contenders = refreshTenants(memory, input.tenants, input.nowMs, options)
  const capacity = Math.max(0, Math.floor(input.capacity))
  if (capacity === 0) return { order: [], counts: new Map() }
  return runRounds(memory, inTurnOrder(memory, contenders), capacity)
}

/**
 * The claim released fewer rows than planned (another process took them, or they were cancelled):
 * the unused allowance goes back, and the tenant counts as emptied, so its deficit resets as DRR
 * does for a queue that ran dry.
 */
export function settleRelease(
  state: PacerState,
  input: { tenantId: string; planned: number; released: number },
): void {
  const memory = memoryOf(state)
  const tenant = memory.tenants.get(input.tenantId)
  const unused = input.planned - input.released
  if (!tenant || !(unused > 0)) return
  tenant.allowance = Math.min(tenant.cap, tenant.allowance + unused)
  tenant.deficit = 0
  if (memory.resumeTenantId === input.tenantId) memory.resumeTenantId = null
}

function memoryOf(state: PacerState): PacerMemory {
  const memory = memories.get(state)
  if (!memory) throw new TypeError('not a pacer state made by createPacerState()')
  return memory
}

/** Refills every listed tenant's allowance and returns those that can take a slot this tick. */
function refreshTenants(
  memory: PacerMemory,
  tenants: PacerTenant[],
  nowMs: number,
  options: PacerOptions,
): Contender[] {
  const seen = new Set<string>()
  const contenders: Contender[] = []
  for (const tenant of tenants) {
    assertTenant(tenant)
    if (seen.has(tenant.tenantId)) throw new RangeError(`tenant ${tenant.tenantId} is listed twice`)
    seen.add(tenant.tenantId)
    const cap = allowanceCap(tenant.ratePerSec, options.horizonMs, tenant.burst)
    let remembered = memory.tenants.get(tenant.tenantId)
    if (!remembered) {
      // A full allowance at first sight: a small campaign goes out in one tick.
      remembered = { allowance: cap, refilledAtMs: nowMs, seenAtMs: nowMs, ratePerSec: 0, cap, deficit: 0 }
      memory.tenants.set(tenant.tenantId, remembered)
    }
    remembered.allowance = refilledAllowance({
      allowance: remembered.allowance,
      refilledAtMs: remembered.refilledAtMs,
      nowMs,
      ratePerSec: tenant.ratePerSec,
      cap,
    })
    remembered.refilledAtMs = Math.max(remembered.refilledAtMs, nowMs)
    if (tenant.refusals) {
      // In debt at most one cap deep, so a burst of refusals (a plan cut) pauses the tenant for about
      // a horizon, not for as long as the refusals would take to earn back.
      remembered.allowance = Math.max(-cap, remembered.allowance - tenant.refusals)
    }
    remembered.seenAtMs = nowMs
    remembered.ratePerSec = tenant.ratePerSec
    remembered.cap = cap
    const allowanceLeft = Math.floor(remembered.allowance)
    const backlogLeft = Math.floor(tenant.backlog)
    if (allowanceLeft >= 1 && backlogLeft >= 1) {
      contenders.push({
        tenantId: tenant.tenantId,
        weight: tenant.weight,
        memory: remembered,
        allowanceLeft,
        backlogLeft,
      })
    } else {
      remembered.deficit = 0
    }
  }
  return contenders
}

/**
 * Contenders in ring order (by tenant id, so the order does not depend on how the query sorted them),
 * starting with the tenant whose turn was cut short, else the one after the last tenant served.
 */
function inTurnOrder(memory: PacerMemory, contenders: Contender[]): Contender[] {
  contenders.sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0))
  const resumeAt = contenders.findIndex(
    (contender) => contender.tenantId === memory.resumeTenantId && contender.memory.deficit >= 1,
  )
  if (resumeAt < 0) memory.resumeTenantId = null
  const last = memory.lastServedTenantId
  const nextAt = last === null ? 0 : contenders.findIndex((contender) => contender.tenantId > last)
  const start = resumeAt >= 0 ? resumeAt : Math.max(0, nextAt)
  return [...contenders.slice(start), ...contenders.slice(0, start)]
}

/**
 * The rounds. A tenant that can go on rejoins the back of the queue, one that cannot is dropped, so
 * each turn emits at least one slot (weights are at least 1) and the work is O(capacity + tenants).
 */
function runRounds(memory: PacerMemory, queue: Contender[], capacity: number): ReleasePlan {
  const order: string[] = []
  const counts = new Map<string, number>()
  let remaining = capacity
  let resuming = memory.resumeTenantId
  memory.resumeTenantId = null
  for (let head = 0; remaining > 0 && head < queue.length; head++) {
    const contender = queue[head] as Contender
    const tenant = contender.memory
    if (!(contender.tenantId === resuming && tenant.deficit >= 1)) tenant.deficit += contender.weight
    resuming = null
    const slots = Math.min(
      Math.floor(tenant.deficit),
      contender.allowanceLeft,
      contender.backlogLeft,
      remaining,
    )
    for (let slot = 0; slot < slots; slot++) order.push(contender.tenantId)
    counts.set(contender.tenantId, (counts.get(contender.tenantId) ?? 0) + slots)
    tenant.deficit -= slots
    tenant.allowance -= slots
    contender.allowanceLeft -= slots
    contender.backlogLeft -= slots
    remaining -= slots
    memory.lastServedTenantId = contender.tenantId
    if (contender.allowanceLeft === 0 || contender.backlogLeft === 0) {
      tenant.deficit = 0
    } else if (tenant.deficit >= 1) {
      // Only the free slots can have stopped it: it finishes this turn at the next tick.
      memory.resumeTenantId = contender.tenantId
    } else {
      queue.push(contender)
    }
  }
  return { order, counts }
}

function forgetIdleTenants(memory: PacerMemory, nowMs: number): void {
  if (nowMs - memory.scannedAtMs < FORGET_SCAN_EVERY_MS) return
  memory.scannedAtMs = nowMs
  for (const [tenantId, tenant] of memory.tenants) {
    const full = tenant.allowance + (tenant.ratePerSec * (nowMs - tenant.refilledAtMs)) / 1000 >= tenant.cap
    // Only once full again: a tenant coming back starts full, which must not be more than it had.
    if (nowMs - tenant.seenAtMs >= FORGET_TENANT_AFTER_MS && full) memory.tenants.delete(tenantId)
  }
}

function assertTenant(tenant: PacerTenant): void {
  if (!(Number.isInteger(tenant.weight) && tenant.weight >= 1)) {
    throw new RangeError(`tenant ${tenant.tenantId}: weight must be an integer ≥ 1, got ${tenant.weight}`)
  }
  if (!(Number.isFinite(tenant.ratePerSec) && tenant.ratePerSec > 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: ratePerSec must be positive, got ${tenant.ratePerSec}`)
  }
  if (tenant.refusals !== undefined && !(Number.isInteger(tenant.refusals) && tenant.refusals >= 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: refusals must be an integer ≥ 0, got ${tenant.refusals}`)
  }
  if (!(tenant.backlog >= 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: backlog must be ≥ 0, got ${tenant.backlog}`)
  }
}
