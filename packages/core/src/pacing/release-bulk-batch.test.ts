import { describe, expect, it } from 'vitest'
import type {
  BacklogTenant,
  BulkBacklogStore,
  BulkLane,
  PlannedTenant,
  ReleasedMessage,
  ReleasePlanner,
} from './ports'
import { inPlanBatches, type ReleaseBulkBatchDeps, releaseBulkBatch } from './release-bulk-batch'

interface Row extends ReleasedMessage {
  status: 'pending' | 'queued'
  /** Held by another claimer: SKIP LOCKED passes it by. */
  locked?: boolean
}

/** Pending bulk rows in memory, oldest first per tenant, claimed and given back as PostgreSQL would. */
function memoryStore(pending: Record<string, number>) {
  const rows: Row[] = Object.entries(pending).flatMap(([tenantId, count]) =>
    Array.from({ length: count }, (_, index) => ({
      messageId: `${tenantId}${index + 1}`,
      tenantId,
      generation: 0,
      status: 'pending' as const,
    })),
  )
  const calls = { findBacklog: 0, claim: 0, giveBack: 0 }
  const store: BulkBacklogStore = {
    async findBacklog({ cap }) {
      calls.findBacklog += 1
      const tenants = new Map<string, BacklogTenant>()
      for (const row of rows.filter((candidate) => candidate.status === 'pending')) {
        const tenant = tenants.get(row.tenantId) ?? {
          tenantId: row.tenantId,
          ratePerSec: 10,
          burst: 10,
          weight: 1,
          backlog: 0,
        }
        tenant.backlog = Math.min(cap, tenant.backlog + 1)
        tenants.set(row.tenantId, tenant)
      }
      return [...tenants.values()]
    },
    async claim(quotas) {
      calls.claim += 1
      return quotas.flatMap(({ tenantId, count }) =>
        rows
          .filter((row) => row.tenantId === tenantId && row.status === 'pending' && !row.locked)
          .slice(0, count)
          .map((row) => {
            row.status = 'queued'
            return { messageId: row.messageId, tenantId, generation: row.generation }
          }),
      )
    },
    async giveBack(released) {
      calls.giveBack += 1
      let returned = 0
      for (const { messageId, generation } of released) {
        const row = rows.find((candidate) => candidate.messageId === messageId)
        if (row?.status === 'queued' && row.generation === generation) {
          row.status = 'pending'
          returned += 1
        }
      }
      return returned
    },
  }
  const statusOf = (messageId: string) => rows.find((row) => row.messageId === messageId)?.status
  const lock = (messageId: string) => {
    const row = rows.find((candidate) => candidate.messageId === messageId)
    if (row) row.locked = true
  }
  return { store, calls, statusOf, lock }
}

/** A lane holding `depth` jobs; `failWith` makes every add fail. */
function memoryLane(depth: number, failWith?: Error) {
  const jobs: string[] = []
  const batches: string[][] = []
  const lane: BulkLane = {
    depth: async () => depth + jobs.length,
    async enqueue(released) {
      if (failWith) throw failWith
      jobs.push(...released.map((row) => row.messageId))
    },
    async enqueueBatches(released) {
      if (failWith) throw failWith
      for (const batch of released) {
        batches.push(batch.messages.map((row) => row.messageId))
        jobs.push(...batch.messages.map((row) => row.messageId))
      }
    },
  }
  return { lane, jobs, batches }
}

/**
 * Plain round robin over the tenants' backlogs, each turn one slot, less each tenant's refusals: the
 * interleaving a fair planner produces, without its allowance memory. Records what it was asked.
 */
function roundRobinPlanner() {
  const asked: Array<{ tenants: PlannedTenant[]; capacity: number; nowMs: number }> = []
  const settled: Array<{ tenantId: string; planned: number; released: number }> = []
  const planner: ReleasePlanner = {
    plan(input) {
      asked.push(input)
      const left = new Map(
        input.tenants.map((tenant) => [tenant.tenantId, tenant.backlog - (tenant.refusals ?? 0)]),
      )
      const order: string[] = []
      while (order.length < input.capacity && [...left.values()].some((count) => count > 0)) {
        for (const [tenantId, count] of left) {
          if (count <= 0 || order.length >= input.capacity) continue
          order.push(tenantId)
          left.set(tenantId, count - 1)
        }
      }
      const counts = new Map<string, number>()
      for (const tenantId of order) counts.set(tenantId, (counts.get(tenantId) ?? 0) + 1)
      return { order, counts }
    },
    settle: (input) => settled.push(input),
  }
  return { planner, asked, settled }
}

const clock = { now: () => new Date('2026-05-01T10:00:00Z') }
const logger = { warn: () => {} }

function deps(overrides: Partial<ReleaseBulkBatchDeps> & Pick<ReleaseBulkBatchDeps, 'store' | 'lane'>) {
  return { planner: roundRobinPlanner().planner, highWater: 10, clock, logger, ...overrides }
}

describe('release the next bulk batch', () => {
  it('fills the free slots (high water − depth) with jobs in the plan’s interleaved order', async () => {
    const { store, statusOf } = memoryStore({ a: 3, b: 2, c: 1 })
    const { lane, jobs } = memoryLane(5)
    const { planner, asked, settled } = roundRobinPlanner()
    const outcome = await releaseBulkBatch(deps({ store, lane, planner }))
    expect(asked[0]).toMatchObject({ capacity: 5, nowMs: clock.now().getTime() })
    expect(jobs).toEqual(['a1', 'b1', 'c1', 'a2', 'b2'])
    expect(outcome).toEqual({ kind: 'released', released: 5, backlog: { tenants: 3, rows: 6 } })
    expect(statusOf('a3')).toBe('pending')
    expect(settled).toEqual([])
  })

  it('fills only to the depth target, and records what it released there', async () => {
    const { store } = memoryStore({ a: 10 })
    const { lane, jobs } = memoryLane(1)
    const recorded: Array<[number, number]> = []
    const depthTarget = {
      depth: () => 4,
      record: (atMs: number, count: number) => recorded.push([atMs, count]),
    }
    await releaseBulkBatch(deps({ store, lane, depthTarget }))
    expect(jobs).toEqual(['a1', 'a2', 'a3'])
    expect(recorded).toEqual([[clock.now().getTime(), 3]])
  })

  it('counts each tenant’s backlog only to one more than the free slots, not the whole of it', async () => {
    const { store } = memoryStore({ a: 50, b: 2 })
    const { lane, jobs } = memoryLane(7)
    const { planner, asked } = roundRobinPlanner()
    const outcome = await releaseBulkBatch(deps({ store, lane, planner }))
    // 3 free slots: a's 50 rows read as 4 (it cannot be given more than 3, and must not look emptied).
    expect(asked[0]?.tenants.map((tenant) => [tenant.tenantId, tenant.backlog])).toEqual([
      ['a', 4],
      ['b', 2],
    ])
    expect(jobs).toEqual(['a1', 'b1', 'a2'])
    expect(outcome.backlog).toEqual({ tenants: 2, rows: 6 })
  })

  it('answers full without reading the backlog or claiming when the lane is at its target', async () => {
    const { store, calls, statusOf } = memoryStore({ a: 2 })
    const { lane, jobs } = memoryLane(10)
    expect(await releaseBulkBatch(deps({ store, lane }))).toEqual({
      kind: 'full',
      released: 0,
      backlog: null,
    })
    expect(calls).toEqual({ findBacklog: 0, claim: 0, giveBack: 0 })
    expect(jobs).toEqual([])
    expect(statusOf('a1')).toBe('pending')
  })

  it('answers full without claiming when no tenant has allowance left', async () => {
    const { store, calls } = memoryStore({ a: 2 })
    const { lane } = memoryLane(0)
    const spent: ReleasePlanner = { plan: () => ({ order: [], counts: new Map() }), settle: () => {} }
    expect(await releaseBulkBatch(deps({ store, lane, planner: spent }))).toEqual({
      kind: 'full',
      released: 0,
      backlog: { tenants: 1, rows: 2 },
    })
    expect(calls.claim).toBe(0)
  })

  it('answers idle when nothing is pending', async () => {
    const { store, calls } = memoryStore({})
    const { lane } = memoryLane(0)
    expect(await releaseBulkBatch(deps({ store, lane }))).toEqual({
      kind: 'idle',
      released: 0,
      backlog: { tenants: 0, rows: 0 },
    })
    expect(calls.claim).toBe(0)
  })

  it('gives the claimed rows back and throws when the jobs cannot be added', async () => {
    const { store, statusOf } = memoryStore({ a: 2, b: 1 })
    const { lane } = memoryLane(0, new Error('Redis did not answer bulk addBulk within 400 ms'))
    const { planner, settled } = roundRobinPlanner()
    const warnings: Array<Record<string, unknown>> = []
    const recorded: number[] = []
    const outcome = releaseBulkBatch(
      deps({
        store,
        lane,
        planner,
        logger: { warn: (fields) => warnings.push(fields) },
        depthTarget: { depth: () => 10, record: (_, count) => recorded.push(count) },
      }),
    )
    await expect(outcome).rejects.toThrow(/did not answer bulk addBulk/)
    expect(['a1', 'a2', 'b1'].map(statusOf)).toEqual(['pending', 'pending', 'pending'])
    expect(warnings).toEqual([expect.objectContaining({ claimed: 3, returned: 3 })])
    expect(settled).toEqual([])
    expect(recorded).toEqual([])
  })

  it('settles the shortfall of a tenant whose rows another claimer held', async () => {
    const { store, lock } = memoryStore({ a: 2, b: 2 })
    lock('b1')
    lock('b2')
    const { lane, jobs } = memoryLane(0)
    const { planner, settled } = roundRobinPlanner()
    const outcome = await releaseBulkBatch(deps({ store, lane, planner }))
    expect(jobs).toEqual(['a1', 'a2'])
    expect(settled).toEqual([{ tenantId: 'b', planned: 2, released: 0 }])
    expect(outcome).toMatchObject({ kind: 'released', released: 2 })
  })

  it('answers idle when every planned row was taken meanwhile, settling them all', async () => {
    const { store, lock } = memoryStore({ a: 1 })
    lock('a1')
    const { lane, jobs } = memoryLane(0)
    const { planner, settled } = roundRobinPlanner()
    expect(await releaseBulkBatch(deps({ store, lane, planner }))).toMatchObject({
      kind: 'idle',
      released: 0,
    })
    expect(jobs).toEqual([])
    expect(settled).toEqual([{ tenantId: 'a', planned: 1, released: 0 }])
  })

  it('passes each tenant’s refusals to the planner, only for tenants that have some', async () => {
    const { store } = memoryStore({ a: 3, b: 3 })
    const { lane, jobs } = memoryLane(0)
    const { planner, asked } = roundRobinPlanner()
    const refusals = async (tenantIds: string[]) => {
      expect(tenantIds).toEqual(['a', 'b'])
      return new Map([['a', 2]])
    }
    await releaseBulkBatch(deps({ store, lane, planner, refusals }))
    expect(asked[0]?.tenants.map((tenant) => tenant.refusals)).toEqual([2, undefined])
    expect(asked[0]?.tenants[1]).not.toHaveProperty('refusals')
    expect(jobs).toEqual(['a1', 'b1', 'b2', 'b3'])
  })

  it('groups each tenant’s rows into batches of at most the batch size, interleaved at batch granularity', async () => {
    const { store } = memoryStore({ a: 7, b: 2, c: 1 })
    const { lane, batches } = memoryLane(0)
    const outcome = await releaseBulkBatch(deps({ store, lane, highWater: 20, batchSize: 3 }))
    // The plan's order is a b c a b a a a a a: each batch takes its first row's place.
    expect(batches).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2'], ['c1'], ['a4', 'a5', 'a6'], ['a7']])
    expect(outcome).toMatchObject({ kind: 'released', released: 10 })
  })

  it('with a batch size of 1 adds one job per row, as before batches', async () => {
    const { store } = memoryStore({ a: 2, b: 1 })
    const { lane, batches } = memoryLane(0)
    await releaseBulkBatch(deps({ store, lane, batchSize: 1 }))
    expect(batches).toEqual([['a1'], ['b1'], ['a2']])
  })

  it('refuses a batch size that is not a whole number of at least 1', () => {
    expect(() => inPlanBatches([], { order: [], counts: new Map() }, 0)).toThrow(/batchSize/)
  })
})
