import { describe, expect, it } from 'vitest'
import type {
  ActiveBulkStore,
  ActiveFlowPlanner,
  ActiveTenant,
  BulkLane,
  ReleasedMessage,
  ReleaseQuota,
} from './ports'
import { createActiveSetSync, type ReleaseActiveBulkDeps, releaseActiveBulk } from './release-active-bulk'

/**
 * The use case's wiring against in-memory fakes: the set read whole once then by changes, the
 * claim's shortfall turned into a guarded leave, the slots it freed given out in a second pass, the
 * jobs added in the plan's order. The fairness rule itself is `createActiveFlows`'s (its own tests);
 * the planner here is plain round robin, one slot per tenant a round.
 */

function memoryStore(pending: Record<string, number>) {
  const rows = new Map<string, number>(Object.entries(pending))
  const active = new Map<string, number>([...rows.keys()].map((tenantId, index) => [tenantId, index + 1]))
  let stamp = active.size
  const reads: Array<string | null> = []
  const leaves: string[][] = []
  let changed: string[] = []
  const store: ActiveBulkStore = {
    async readActive({ after }) {
      reads.push(after)
      const ids = after === null ? [...active.keys()] : changed
      changed = []
      const tenants: ActiveTenant[] = ids.map((tenantId) => ({
        tenantId,
        ratePerSec: 100,
        burst: 100,
        weight: 1,
        seq: active.get(tenantId) as number,
      }))
      return { tenants, cursor: `c${reads.length}` }
    },
    async leaveIfEmpty(tenants) {
      leaves.push(tenants.map((tenant) => tenant.tenantId))
      return tenants
        .filter(
          (tenant) => (rows.get(tenant.tenantId) ?? 0) === 0 && active.get(tenant.tenantId) === tenant.seq,
        )
        .map((tenant) => {
          active.delete(tenant.tenantId)
          return tenant.tenantId
        })
    },
    async claim(quotas) {
      return quotas.flatMap(({ tenantId, count }) => {
        const got = Math.min(count, rows.get(tenantId) ?? 0)
        rows.set(tenantId, (rows.get(tenantId) ?? 0) - got)
        return Array.from({ length: got }, (_, index) => ({
          messageId: `${tenantId}-${index}`,
          tenantId,
          generation: 0,
        }))
      })
    },
    async giveBack(released) {
      for (const row of released) rows.set(row.tenantId, (rows.get(row.tenantId) ?? 0) + 1)
      return released.length
    },
  }
  /** A writer adds rows: the trigger stamps the tenant. */
  const add = (tenantId: string, count: number) => {
    rows.set(tenantId, (rows.get(tenantId) ?? 0) + count)
    active.set(tenantId, ++stamp)
    changed.push(tenantId)
  }
  return { store, reads, leaves, add, isActive: (tenantId: string) => active.has(tenantId) }
}

/**
 * Round robin over the tenants in the order they joined, counting visits; `newFlowsOnly` plans only
 * the tenants not planned yet.
 */
function roundRobin(): ActiveFlowPlanner & { joined: string[] } {
  const seqs = new Map<string, number>()
  const joined: string[] = []
  const unplanned = new Set<string>()
  return {
    joined,
    get size() {
      return seqs.size
    },
    activate(tenants) {
      for (const tenant of tenants) {
        if (!seqs.has(tenant.tenantId)) {
          joined.push(tenant.tenantId)
          unplanned.add(tenant.tenantId)
        }
        seqs.set(tenant.tenantId, tenant.seq)
      }
    },
    replaceAll(tenants) {
      seqs.clear()
      this.activate(tenants, 0)
    },
    deactivate(tenantId) {
      seqs.delete(tenantId)
    },
    seqOf: (tenantId) => seqs.get(tenantId),
    recentlyReleased: () => [],
    refuse() {},
    plan({ capacity, newFlowsOnly }) {
      const order: string[] = []
      const counts = new Map<string, number>()
      const ids = newFlowsOnly ? [...unplanned] : [...seqs.keys()]
      const slots = newFlowsOnly ? Math.min(capacity, ids.length) : capacity
      for (let slot = 0; slot < slots && ids.length > 0; slot++) {
        const tenantId = ids[slot % ids.length] as string
        order.push(tenantId)
        counts.set(tenantId, (counts.get(tenantId) ?? 0) + 1)
        unplanned.delete(tenantId)
      }
      return { order, counts, visited: Math.min(slots, ids.length) }
    },
    settle() {},
  }
}

function deferred() {
  let resolve = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

function memoryLane(depth: number) {
  const added: ReleasedMessage[] = []
  const lane: BulkLane = {
    depth: async () => depth + added.length,
    async enqueue(released) {
      added.push(...released)
    },
    async enqueueBatches(batches) {
      for (const batch of batches) added.push(...batch.messages)
    },
  }
  return { lane, added }
}

function deps(overrides: Partial<ReleaseActiveBulkDeps> & Pick<ReleaseActiveBulkDeps, 'store' | 'lane'>) {
  return {
    planner: roundRobin(),
    sync: createActiveSetSync(),
    highWater: 10,
    refusalWindowMs: 1000,
    rereadEveryMs: 30_000,
    clock: { now: () => new Date(1_000_000) },
    logger: { warn() {} },
    ...overrides,
  } satisfies ReleaseActiveBulkDeps
}

describe('releaseActiveBulk', () => {
  it('reads the whole set once, then only its changes', async () => {
    const { store, reads, add } = memoryStore({ a: 100 })
    const { lane } = memoryLane(0)
    const planner = roundRobin()
    const sync = createActiveSetSync()
    await releaseActiveBulk(deps({ store, lane, planner, sync, highWater: 2 }))
    add('b', 5)
    await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync, highWater: 2 }))
    expect(reads).toEqual([null, 'c1'])
    expect(planner.joined).toEqual(['a', 'b'])
  })

  it("starts a tenant's claim after the last row it took, from its oldest again once it is stamped or found short", async () => {
    const { store, add } = memoryStore({ a: 100, b: 1 })
    const claimedRows = new Map<string, number>()
    const asked: Array<Record<string, string | null>> = []
    const claim = store.claim
    // The rows as PostgreSQL prints them: created_at in the claim's order, returned out of order.
    store.claim = async (quotas) => {
      asked.push(Object.fromEntries(quotas.map((quota) => [quota.tenantId, quota.after?.messageId ?? null])))
      const rows = (await claim(quotas)).map((row) => {
        const n = (claimedRows.get(row.tenantId) ?? 0) + 1
        claimedRows.set(row.tenantId, n)
        const createdAt = `2026-12-07T00:00:00.${String(n).padStart(6, '0')}Z`
        return { ...row, messageId: `${row.tenantId}-${n}`, createdAt }
      })
      return rows.reverse()
    }
    const sync = createActiveSetSync()
    const planner = roundRobin()
    const tick = () =>
      releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync, highWater: 4 }))
    await tick()
    // b was short (1 of 2) and left; the second pass gave its slot to a, after a's newest row.
    expect(asked).toEqual([{ a: null, b: null }, { a: 'a-2' }])
    expect(sync.claimedUpTo.get('a')?.messageId).toBe('a-3')
    expect(sync.claimedUpTo.has('b')).toBe(false)
    await tick()
    expect(asked.at(-1)).toEqual({ a: 'a-3' })
    add('a', 5)
    await tick()
    expect(asked.at(-1)).toEqual({ a: null })
  })

  it('reads the whole set again when the sync is reset (a new leader)', async () => {
    const { store, reads } = memoryStore({ a: 100 })
    const sync = createActiveSetSync()
    const planner = roundRobin()
    await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync }))
    sync.cursor = null
    await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync }))
    expect(reads).toEqual([null, null])
  })

  it('lets an emptied tenant leave and gives its slots to the others in a second pass', async () => {
    const { store, leaves, isActive } = memoryStore({ a: 100, b: 1 })
    const { lane, added } = memoryLane(0)
    const planner = roundRobin()
    const outcome = await releaseActiveBulk(deps({ store, lane, planner, highWater: 10 }))
    expect(leaves).toEqual([['b']])
    expect(isActive('b')).toBe(false)
    expect(planner.size).toBe(1)
    expect(outcome).toMatchObject({ kind: 'released', released: 10, activeTenants: 1, left: 1 })
    expect(added.filter((row) => row.tenantId === 'b')).toHaveLength(1)
  })

  it('keeps a tenant a writer stamped after the pacer read it, though a claim found it empty', async () => {
    const { store, add, isActive } = memoryStore({ a: 1 })
    const planner = roundRobin()
    const sync = createActiveSetSync()
    // The claim empties it; rows arrive before the leave, with a new stamp the pacer has not read.
    const claim = store.claim
    store.claim = async (quotas) => {
      const released = await claim(quotas)
      add('a', 3)
      return released
    }
    await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync, highWater: 5 }))
    expect(isActive('a')).toBe(true)
    expect(planner.size).toBe(1)
  })

  it("reads the lane's depth and the set's changes at once, and leaves beside the add", async () => {
    // Each step waits until its partner has started: run one after the other, the tick never ends.
    const started = { depth: deferred(), read: deferred(), leave: deferred(), add: deferred() }
    const { store } = memoryStore({ a: 1, b: 5 })
    const readActive = store.readActive
    store.readActive = async (input) => {
      started.read.resolve()
      await started.depth.promise
      return readActive(input)
    }
    const leaveIfEmpty = store.leaveIfEmpty
    store.leaveIfEmpty = async (tenants) => {
      started.leave.resolve()
      await started.add.promise
      return leaveIfEmpty(tenants)
    }
    const { lane, added } = memoryLane(0)
    const depth = lane.depth
    lane.depth = async () => {
      started.depth.resolve()
      await started.read.promise
      return depth()
    }
    const enqueueBatches = lane.enqueueBatches
    lane.enqueueBatches = async (batches) => {
      started.add.resolve()
      await started.leave.promise
      return enqueueBatches?.(batches)
    }
    const outcome = await releaseActiveBulk(deps({ store, lane, highWater: 4 }))
    // a had one row for its two slots: it left, and its slot went to b in the second pass.
    expect(outcome).toMatchObject({ released: 4, left: 1 })
    expect(added.map((row) => row.tenantId)).toEqual(['a', 'b', 'b', 'b'])
  })

  it('claims nothing while the lane is full beyond the room it keeps for new flows, and keeps up with the set', async () => {
    const { store, reads } = memoryStore({ a: 100 })
    const claimed: ReleaseQuota[][] = []
    const claim = store.claim
    store.claim = async (quotas) => {
      claimed.push([...quotas])
      return claim(quotas)
    }
    const outcome = await releaseActiveBulk(
      deps({ store, lane: memoryLane(12).lane, highWater: 10, newFlowRoom: 2 }),
    )
    expect(outcome).toEqual({ kind: 'full', released: 0, activeTenants: 1, visited: 0, left: 0 })
    expect(claimed).toEqual([])
    // The set was read beside the depth (at once, not after it).
    expect(reads).toEqual([null])
  })

  it("gives a tenant that just joined its first turn while the lane is at its target, and nobody else's", async () => {
    const { store, add } = memoryStore({ old: 100 })
    const planner = roundRobin()
    const sync = createActiveSetSync()
    await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane, planner, sync, highWater: 10 }))
    add('new', 5)
    const { lane, added } = memoryLane(10)
    const outcome = await releaseActiveBulk(
      deps({ store, lane, planner, sync, highWater: 10, newFlowRoom: 4 }),
    )
    expect(added.map((row) => row.tenantId)).toEqual(['new'])
    expect(outcome).toMatchObject({ kind: 'released', released: 1 })
    // Its next turn waits for room like the old flow's.
    const again = await releaseActiveBulk(
      deps({ store, lane: memoryLane(11).lane, planner, sync, highWater: 10, newFlowRoom: 4 }),
    )
    expect(again).toMatchObject({ kind: 'full', released: 0 })
    // Without room for new flows, a newcomer waits too.
    add('later', 5)
    const none = await releaseActiveBulk(
      deps({ store, lane: memoryLane(10).lane, planner, sync, highWater: 10, newFlowRoom: 0 }),
    )
    expect(none).toMatchObject({ kind: 'full', released: 0 })
  })

  it('is idle with an empty set', async () => {
    const { store } = memoryStore({})
    const outcome = await releaseActiveBulk(deps({ store, lane: memoryLane(0).lane }))
    expect(outcome.kind).toBe('idle')
  })

  it('keeps a batch for every bulk worker slot: 300 messages over 8 slots are 8 batches or more, not 6 of 50', async () => {
    const { store } = memoryStore({ a: 1_000, b: 1_000 })
    const batches: number[] = []
    const lane: BulkLane = {
      depth: async () => batches.reduce((sum, size) => sum + size, 0),
      async enqueue() {
        throw new Error('a batching release adds batches')
      },
      async enqueueBatches(released) {
        for (const batch of released) batches.push(batch.messages.length)
      },
    }
    await releaseActiveBulk(deps({ store, lane, highWater: 300, batchSize: 50, workerSlots: 8 }))
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(300)
    expect(batches.length).toBeGreaterThanOrEqual(8)
    expect(Math.max(...batches)).toBeLessThanOrEqual(Math.floor(300 / 8))
  })

  it("sizes batches from the depth before the governor's cut: a governed lane holds fewer batches, not smaller ones", async () => {
    const { store } = memoryStore({ a: 1_000 })
    const batches: number[] = []
    const lane: BulkLane = {
      depth: async () => 0,
      async enqueue() {
        throw new Error('a batching release adds batches')
      },
      async enqueueBatches(released) {
        for (const batch of released) batches.push(batch.messages.length)
      },
    }
    // Measured 160, cut by the governor to 40: 40 messages in batches of 160 / 8 = 20, not of 40 / 8 = 5.
    const depthTarget = { depth: () => 40, ungoverned: () => 160, record() {} }
    await releaseActiveBulk(deps({ store, lane, highWater: 300, batchSize: 50, workerSlots: 8, depthTarget }))
    expect(batches).toEqual([20, 20])
  })
})
