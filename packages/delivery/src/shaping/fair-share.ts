import {
  type Contender,
  type ProviderMemory,
  type ProviderRound,
  readBacklogs,
  readProviders,
  readTenants,
  type ShareBacklog,
  type ShareProvider,
  type ShareRelease,
  type ShareSlot,
  type ShareTenant,
  type TenantTurnState,
} from './fair-share-input'

/**
 * The receiver pacer's plan for one tick: how many waiting messages of each (tenant, provider) to
 * release. Two dimensions: each provider's budget this tick (from its rate controller; 0 while it
 * is paused) is shared between the tenants with mail for it, and each tenant's allowance this tick
 * (from its own plan) is shared between the providers it has mail for.
 *
 * Inside a provider: weighted deficit round robin, as the bulk pacer does (packages/fairness
 * pacer/active-flows.ts). Each turn adds the tenant's weight to its deficit and releases whole messages
 * while the deficit reaches 1; a tenant that runs out of backlog or allowance leaves and its
 * deficit resets, so no credit is banked while idle; the ring is in tenant id order and each tick
 * starts after the tenant served last, so a newcomer's first turn comes within one round; a turn
 * cut short by the provider's budget is finished first at the next tick.
 *
 * Across providers: the providers take turns, one tenant turn each, so a tenant's allowance is
 * spread over its providers rather than spent at the first one in the list, and the ring of
 * providers starts after the provider served last, so an allowance of one message a tick visits
 * them in turn. A paused provider is not in the ring at all: it takes nothing, costs no tenant any
 * allowance, and keeps its turn state for when it resumes. A tenant blocked at a throttled
 * provider therefore spends its allowance at the others: no head-of-line blocking.
 *
 * Pure: the leader passes what it read (budgets, allowances, backlogs, the time) and keeps the
 * state for the next tick. The state holds a few fields per provider only, and forgets providers
 * not seen for a while, so memory stays bounded however many tenants come and go.
 */

export type { ShareBacklog, ShareProvider, ShareRelease, ShareSlot, ShareTenant } from './fair-share-input'

export interface SharePlan {
  /** One slot per released message, in the order to enqueue them: turns interleave tenants and providers. */
  order: ShareSlot[]
  /** One entry per (tenant, provider) with something released. */
  releases: ShareRelease[]
}

/** The leader's memory between ticks. Opaque: only this module reads it. */
export interface FairShareState {
  readonly kind: 'fair-share-state'
}

/** A provider unseen for this long is forgotten (its turn state only), so memory stays bounded. */
export const FORGET_PROVIDER_AFTER_MS = 10 * 60_000
/** Looking for providers to forget scans them all, so it is done now and then, not every tick. */
const FORGET_SCAN_EVERY_MS = 10_000

interface ShareMemory {
  providers: Map<string, ProviderMemory>
  lastServedProvider: string | null
  scannedAtMs: number
}

const memories = new WeakMap<FairShareState, ShareMemory>()

export function createFairShareState(): FairShareState {
  const state: FairShareState = Object.freeze({ kind: 'fair-share-state' })
  memories.set(state, {
    providers: new Map(),
    lastServedProvider: null,
    scannedAtMs: Number.NEGATIVE_INFINITY,
  })
  return state
}

/** Providers the state remembers: for a gauge, and to see that forgetting works. */
export function trackedProviderCount(state: FairShareState): number {
  return memoryOf(state).providers.size
}

/**
 * Plans one tick. Never more at a provider than `budget − reserved`, for a tenant than its
 * allowance, for a pair than its backlog. Work-conserving: budget is left over at a provider only
 * when every tenant with mail for it has run out of allowance or of that mail. O(released messages
 * + backlog entries + tenants · log tenants).
 */
export function planFairShare(
  state: FairShareState,
  input: { providers: ShareProvider[]; tenants: ShareTenant[]; backlogs: ShareBacklog[]; nowMs: number },
): SharePlan {
  const memory = memoryOf(state)
  forgetIdleProviders(memory, input.nowMs)
  const rounds = readProviders(memory.providers, input.providers, input.nowMs)
  const tenants = readTenants(input.tenants)
  readBacklogs(input.backlogs, tenants, rounds)
  const ring = providerRing(memory, queueTenants(tenants, rounds))
  return runTurns(memory, ring)
}

/**
 * The claim released fewer messages than planned (another process took them, or they were
 * cancelled): the pair counts as emptied, so a cut turn there is not resumed, as DRR does for a
 * queue that ran dry. The tenant's unused allowance is the caller's to give back to its plan.
 */
export function settleFairShare(
  state: FairShareState,
  input: { tenantId: string; provider: string; planned: number; released: number },
): void {
  const provider = memoryOf(state).providers.get(input.provider)
  if (provider && input.released < input.planned && provider.resume?.tenantId === input.tenantId) {
    provider.resume = null
  }
}

function memoryOf(state: FairShareState): ShareMemory {
  const memory = memories.get(state)
  if (!memory) throw new TypeError('not a fair-share state made by createFairShareState()')
  return memory
}

/**
 * Fills each provider's queue in ring order (tenant id, so the order does not depend on how the
 * query sorted its rows), starting with the tenant resuming a cut turn, else the one after the
 * tenant served last. Sorting the tenants once keeps every provider's queue sorted for free.
 * Returns the providers with something to do.
 */
function queueTenants(
  tenants: Map<string, TenantTurnState>,
  rounds: Map<string, ProviderRound>,
): ProviderRound[] {
  const ordered = [...tenants.values()].filter((tenant) => tenant.contenders.length > 0)
  ordered.sort((a, b) => compare(a.tenantId, b.tenantId))
  for (const tenant of ordered) {
    for (const contender of tenant.contenders) {
      const round = contender.provider
      // Cheaper than a set of pair keys: each provider remembers the last tenant that listed it.
      if (round.listedBy === tenant) {
        throw new RangeError(
          `backlog for tenant ${tenant.tenantId} at provider ${round.provider} is listed twice`,
        )
      }
      round.listedBy = tenant
      const canGo = contender.backlogLeft >= 1 && tenant.allowanceLeft >= 1 && round.remaining >= 1
      if (canGo) round.queue.push(contender)
    }
  }
  const active: ProviderRound[] = []
  for (const round of rounds.values()) {
    // A paused provider keeps its turn state untouched until it can take mail again.
    if (round.remaining < 1) continue
    const { resume, lastServedTenantId } = round.memory
    round.memory.resume = null
    if (round.queue.length === 0) continue
    const resumeAt = resume ? round.queue.findIndex((c) => c.tenant.tenantId === resume.tenantId) : -1
    let start: number
    if (resume && resumeAt >= 0 && resume.deficit >= 1) {
      start = resumeAt
      const resuming = round.queue[resumeAt] as Contender
      resuming.deficit = resume.deficit
      round.resumingTenantId = resume.tenantId
    } else {
      start = lastServedTenantId === null ? 0 : firstAfter(round.queue, lastServedTenantId)
    }
    if (start > 0) round.queue = [...round.queue.slice(start), ...round.queue.slice(0, start)]
    active.push(round)
  }
  return active
}

/** The providers in name order, starting after the provider served last. */
function providerRing(memory: ShareMemory, active: ProviderRound[]): ProviderRound[] {
  active.sort((a, b) => compare(a.provider, b.provider))
  const last = memory.lastServedProvider
  const next = last === null ? 0 : active.findIndex((round) => round.provider > last)
  const start = Math.max(0, next)
  return [...active.slice(start), ...active.slice(0, start)]
}

/**
 * The turns. Each provider in the ring takes one tenant turn and rejoins the back while it has
 * budget and tenants; each turn releases at least one message or drops a tenant from a provider,
 * so the work is O(released + backlog entries).
 */
function runTurns(memory: ShareMemory, ring: ProviderRound[]): SharePlan {
  const order: ShareSlot[] = []
  const releases: ShareRelease[] = []
  for (let at = 0; at < ring.length; at++) {
    const round = ring[at] as ProviderRound
    const contender = round.queue[round.head++] as Contender
    const tenant = contender.tenant
    if (round.resumingTenantId === tenant.tenantId) round.resumingTenantId = null
    else contender.deficit += tenant.weight
    const slots = Math.min(
      Math.floor(contender.deficit),
      tenant.allowanceLeft,
      contender.backlogLeft,
      round.remaining,
    )
    if (slots > 0) {
      if (!contender.slot || !contender.release) {
        contender.slot = Object.freeze({ tenantId: tenant.tenantId, provider: round.provider })
        contender.release = { tenantId: tenant.tenantId, provider: round.provider, count: 0 }
        releases.push(contender.release)
      }
      for (let slot = 0; slot < slots; slot++) order.push(contender.slot)
      contender.release.count += slots
      contender.deficit -= slots
      tenant.allowanceLeft -= slots
      contender.backlogLeft -= slots
      round.remaining -= slots
      round.memory.lastServedTenantId = tenant.tenantId
      memory.lastServedProvider = round.provider
    }
    if (tenant.allowanceLeft === 0 || contender.backlogLeft === 0) {
      contender.deficit = 0
    } else if (contender.deficit >= 1) {
      // Only the provider's budget can have stopped it: it finishes this turn at the next tick.
      round.memory.resume = { tenantId: tenant.tenantId, deficit: contender.deficit }
    } else {
      round.queue.push(contender)
    }
    if (round.remaining > 0 && round.head < round.queue.length) ring.push(round)
  }
  return { order, releases }
}

/** The index of the first contender after `tenantId` in the sorted queue, wrapping to 0. */
function firstAfter(queue: Contender[], tenantId: string): number {
  let low = 0
  let high = queue.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((queue[middle] as Contender).tenant.tenantId <= tenantId) low = middle + 1
    else high = middle
  }
  return low === queue.length ? 0 : low
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function forgetIdleProviders(memory: ShareMemory, nowMs: number): void {
  if (nowMs - memory.scannedAtMs < FORGET_SCAN_EVERY_MS) return
  memory.scannedAtMs = nowMs
  for (const [provider, remembered] of memory.providers) {
    if (nowMs - remembered.seenAtMs >= FORGET_PROVIDER_AFTER_MS) memory.providers.delete(provider)
  }
}
