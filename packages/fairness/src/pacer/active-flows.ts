import { Fifo, MinHeap } from './flow-queues'
import { allowanceCap, refilledAllowance } from './release-allowance'

/** A tenant that left is forgotten after this long unseen (once its allowance is full again), so memory stays bounded. */
export const FORGET_TENANT_AFTER_MS = 10 * 60_000

/**
 * The bulk pacer's planner over the active set it keeps in memory: weighted deficit round robin
 * with fq_codel's new-flows rule, at a cost that follows what a tick releases, not how many tenants
 * wait.
 *
 * - A tenant that joins (read from the set's changes) goes to the NEW list; each tick serves the new
 *   list before the OLD one, so its first turn comes in the next tick, however many tenants wait.
 *   After a turn a flow goes to the back of the old list.
 * - A turn adds the tenant's weight to its deficit and emits whole slots while the deficit, its
 *   allowance (its rate over the horizon, `release-allowance.ts`) and the tick's slots last. A turn the slots cut
 *   short stays at the head of its list and finishes next tick without a second helping.
 * - A tenant whose allowance is spent sleeps in a heap until it refills to one slot, so a tick does
 *   not step over rate-limited tenants: every visit but a wake-up emits a slot, and a tick is
 *   O(released · log tenants). Its deficit resets (credit is never banked while rate-limited).
 * - The backlog is not counted: a tenant is planned as if it had rows, and a claim that comes back
 *   short gives the allowance back (`settle`); the caller then removes the tenant if it is empty.
 * - A tenant that leaves keeps its allowance for FORGET_TENANT_AFTER_MS, so leaving and coming back
 *   never gives it more than it had.
 */

export interface ActiveTenantPlan {
  tenantId: string
  /** Share of the slots relative to other active tenants; an integer, at least 1. */
  weight: number
  ratePerSec: number
  burst?: number
  /** The set row's stamp as read, kept for the caller's guarded delete. */
  seq: number
}

export interface ActiveFlowsPlan {
  /** One tenant id per released slot, in the order to enqueue them. */
  order: string[]
  counts: Map<string, number>
  /**
   * Per tenant, how many of its slots (its first ones in `order`) are a new flow's turn: served from
   * the new list. The caller puts their jobs at the head of the lane, so a tenant that just became
   * active does not wait behind the jobs already queued for the old flows.
   */
  fresh: Map<string, number>
  /** Flows looked at: each emitted a slot, or was a rate-limited one put to sleep. */
  visited: number
}

export interface ActiveFlows {
  readonly size: number
  activate(tenants: readonly ActiveTenantPlan[], nowMs: number): void
  replaceAll(tenants: readonly ActiveTenantPlan[], nowMs: number): void
  deactivate(tenantId: string, nowMs: number): void
  seqOf(tenantId: string): number | undefined
  recentlyReleased(nowMs: number, withinMs: number): string[]
  refuse(refused: ReadonlyMap<string, number>, nowMs: number): void
  /**
   * `newFlowsOnly`: serve the new list alone (a tick whose lane is at its depth target still gives
   * the tenants that just joined their first turn; the old flows wait for room).
   */
  plan(input: { capacity: number; nowMs: number; newFlowsOnly?: boolean }): ActiveFlowsPlan
  settle(input: { tenantId: string; planned: number; released: number }): void
}

interface Flow {
  tenant: ActiveTenantPlan
  cap: number
  allowance: number
  refilledAtMs: number
  deficit: number
  /** Its weight is in the deficit and the turn is not over: the next visit continues it. */
  midTurn: boolean
  /** Left the set: skipped where it still sits in a list or the heap (never removed from the middle). */
  gone: boolean
}

interface Departed {
  allowance: number
  refilledAtMs: number
  leftAtMs: number
}

/**
 * `quantum`: messages a turn adds to the deficit per unit of weight (default 1), a new flow's first
 * turn excepted (its weight alone). A larger quantum changes no share, only how coarsely they are
 * interleaved: ten thousand tenants of weight 1 with turns of one message each make ten thousand
 * one-message jobs a round; with turns of 5, a fifth as many jobs carry the same mail.
 */
export function createActiveFlows(options: { horizonMs: number; quantum?: number }): ActiveFlows {
  if (!(options.horizonMs > 0)) throw new RangeError(`horizonMs must be positive, got ${options.horizonMs}`)
  const quantum = options.quantum ?? 1
  if (!(Number.isInteger(quantum) && quantum >= 1))
    throw new RangeError(`quantum must be a whole number of at least 1, got ${quantum}`)
  const flows = new Map<string, Flow>()
  const fresh = new Fifo<Flow>()
  const old = new Fifo<Flow>()
  const asleep = new MinHeap<Flow>()
  // Insertion-ordered: the oldest entries are at the front, so pruning costs what it removes.
  const departed = new Map<string, Departed>()
  const releasedAt = new Map<string, number>()

  function refill(flow: Flow, nowMs: number): void {
    flow.allowance = refilledAllowance({
      allowance: flow.allowance,
      refilledAtMs: flow.refilledAtMs,
      nowMs,
      ratePerSec: flow.tenant.ratePerSec,
      cap: flow.cap,
    })
    flow.refilledAtMs = Math.max(flow.refilledAtMs, nowMs)
  }

  function join(tenant: ActiveTenantPlan, nowMs: number): void {
    assertTenant(tenant)
    const known = flows.get(tenant.tenantId)
    const cap = allowanceCap(tenant.ratePerSec, options.horizonMs, tenant.burst)
    if (known) {
      refill(known, nowMs)
      known.tenant = tenant
      known.cap = cap
      known.allowance = Math.min(known.allowance, cap)
      return
    }
    const before = departed.get(tenant.tenantId)
    departed.delete(tenant.tenantId)
    // A full allowance at first sight: a small campaign goes out at once.
    const flow: Flow = {
      tenant,
      cap,
      allowance: before ? before.allowance : cap,
      refilledAtMs: before ? before.refilledAtMs : nowMs,
      deficit: 0,
      midTurn: false,
      gone: false,
    }
    refill(flow, nowMs)
    flows.set(tenant.tenantId, flow)
    fresh.push(flow)
  }

  function leave(flow: Flow, nowMs: number): void {
    flow.gone = true
    flows.delete(flow.tenant.tenantId)
    departed.set(flow.tenant.tenantId, {
      allowance: flow.allowance,
      refilledAtMs: flow.refilledAtMs,
      leftAtMs: nowMs,
    })
    for (const [tenantId, entry] of departed) {
      if (nowMs - entry.leftAtMs < FORGET_TENANT_AFTER_MS) break
      departed.delete(tenantId)
    }
  }

  function sleep(flow: Flow, nowMs: number): void {
    flow.deficit = 0
    flow.midTurn = false
    const wakeAtMs = nowMs + ((1 - flow.allowance) * 1000) / flow.tenant.ratePerSec
    asleep.push(wakeAtMs, flow)
  }

  function wake(nowMs: number): void {
    for (let key = asleep.peekKey(); key !== undefined && key <= nowMs; key = asleep.peekKey()) {
      const flow = asleep.pop() as Flow
      if (!flow.gone) old.push(flow)
    }
  }

  /** The flow whose turn is next (new flows first), skipping those that left. */
  function head(newFlowsOnly: boolean): { flow: Flow; list: Fifo<Flow> } | undefined {
    for (const list of newFlowsOnly ? [fresh] : [fresh, old]) {
      for (let flow = list.peek(); flow !== undefined; flow = list.peek()) {
        if (!flow.gone) return { flow, list }
        list.shift()
      }
    }
    return undefined
  }

  return {
    get size() {
      return flows.size
    },
    activate(tenants, nowMs) {
      for (const tenant of tenants) join(tenant, nowMs)
    },
    replaceAll(tenants, nowMs) {
      const listed = new Set<string>()
      for (const tenant of tenants) {
        listed.add(tenant.tenantId)
        join(tenant, nowMs)
      }
      for (const [tenantId, flow] of flows) if (!listed.has(tenantId)) leave(flow, nowMs)
    },
    deactivate(tenantId, nowMs) {
      const flow = flows.get(tenantId)
      if (flow) leave(flow, nowMs)
    },
    seqOf(tenantId) {
      return flows.get(tenantId)?.tenant.seq
    },
    recentlyReleased(nowMs, withinMs) {
      for (const [tenantId, atMs] of releasedAt) {
        if (nowMs - atMs < withinMs) break
        releasedAt.delete(tenantId)
      }
      return [...releasedAt.keys()]
    },
    refuse(refused, nowMs) {
      for (const [tenantId, count] of refused) {
        const flow = flows.get(tenantId)
        if (!flow || !(count > 0)) continue
        refill(flow, nowMs)
        // In debt at most one cap deep, so a burst of refusals (a plan cut) pauses the tenant for
        // about a horizon, not for as long as the refusals would take to earn back.
        flow.allowance = Math.max(-flow.cap, flow.allowance - count)
      }
    },
    plan(input) {
      const order: string[] = []
      const counts = new Map<string, number>()
      const freshSlots = new Map<string, number>()
      let remaining = Math.max(0, Math.floor(input.capacity))
      let visited = 0
      wake(input.nowMs)
      while (remaining > 0) {
        const next = head(input.newFlowsOnly === true)
        if (!next) break
        const { flow, list } = next
        visited++
        refill(flow, input.nowMs)
        if (flow.allowance < 1) {
          list.shift()
          sleep(flow, input.nowMs)
          continue
        }
        if (!flow.midTurn) {
          // A new flow's first turn is its weight alone: it is there to start the flow at once, and
          // newcomers arriving faster than the lane sends whole quanta would queue behind each other.
          flow.deficit += flow.tenant.weight * (list === fresh ? 1 : quantum)
          flow.midTurn = true
        }
        const slots = Math.min(Math.floor(flow.deficit), Math.floor(flow.allowance), remaining)
        const tenantId = flow.tenant.tenantId
        for (let slot = 0; slot < slots; slot++) order.push(tenantId)
        counts.set(tenantId, (counts.get(tenantId) ?? 0) + slots)
        // A new flow's turn comes before any old-list turn of the same plan: its slots are the first.
        if (list === fresh && slots > 0) freshSlots.set(tenantId, (freshSlots.get(tenantId) ?? 0) + slots)
        flow.deficit -= slots
        flow.allowance -= slots
        remaining -= slots
        releasedAt.delete(tenantId)
        releasedAt.set(tenantId, input.nowMs)
        // Cut short by the tick's slots alone: it finishes this turn first thing next tick.
        if (flow.deficit >= 1 && flow.allowance >= 1) break
        list.shift()
        if (flow.allowance < 1) {
          sleep(flow, input.nowMs)
        } else {
          // Whole weights leave nothing here; a fractional one (a tenant the reputation guardrail
          // slowed to a quarter of weight 1) keeps its part of a slot for its next turn, as DRR keeps
          // a deficit smaller than the next packet: a send every fourth turn instead of none.
          flow.deficit -= Math.floor(flow.deficit)
          flow.midTurn = false
          old.push(flow)
        }
      }
      return { order, counts, fresh: freshSlots, visited }
    },
    settle(input) {
      const flow = flows.get(input.tenantId)
      const unused = input.planned - input.released
      if (!flow || !(unused > 0)) return
      flow.allowance = Math.min(flow.cap, flow.allowance + unused)
      // As DRR does for a queue that ran dry: no credit carried into its next turn.
      flow.deficit = 0
      flow.midTurn = false
    },
  }
}

function assertTenant(tenant: ActiveTenantPlan): void {
  if (!(Number.isFinite(tenant.weight) && tenant.weight > 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: weight must be a number above 0, got ${tenant.weight}`)
  }
  if (!(Number.isFinite(tenant.ratePerSec) && tenant.ratePerSec > 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: ratePerSec must be positive, got ${tenant.ratePerSec}`)
  }
}
