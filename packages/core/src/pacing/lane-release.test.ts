import { describe, expect, it } from 'vitest'
import { inPlanBatches, slotBatchSize } from './lane-release'
import type { ReleasedMessage, ReleasePlan } from './ports'

/** Rows `a1…aN` per tenant, and the plan's order as a string of tenant letters. */
function rows(counts: Record<string, number>): ReleasedMessage[] {
  return Object.entries(counts).flatMap(([tenantId, count]) =>
    Array.from({ length: count }, (_, index) => ({
      messageId: `${tenantId}${index + 1}`,
      tenantId,
      generation: 0,
    })),
  )
}

function plan(order: string): ReleasePlan {
  const counts = new Map<string, number>()
  for (const tenantId of order) counts.set(tenantId, (counts.get(tenantId) ?? 0) + 1)
  return { order: [...order], counts }
}

const ids = (batches: ReturnType<typeof inPlanBatches>) =>
  batches.map((batch) => batch.messages.map((message) => message.messageId))

describe('inPlanBatches', () => {
  it('groups each tenant’s rows into batches of at most the batch size, interleaved at batch granularity', () => {
    const batches = inPlanBatches(rows({ a: 7, b: 2, c: 1 }), plan('abcabaaaaa'), 3)
    // Each batch takes its first row's place in the plan; b's and c's short ones share a job.
    expect(ids(batches)).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2', 'c1'], ['a4', 'a5', 'a6'], ['a7']])
    expect(batches.map((batch) => batch.tenantId)).toEqual(['a', 'b', 'a', 'a'])
  })

  it('with a batch size of 1 makes one batch per row, in the plan’s order', () => {
    expect(ids(inPlanBatches(rows({ a: 2, b: 1 }), plan('aba'), 1))).toEqual([['a1'], ['b1'], ['a2']])
  })

  it('skips the plan’s slots whose rows were not claimed', () => {
    expect(ids(inPlanBatches(rows({ a: 1 }), plan('abab'), 2))).toEqual([['a1']])
  })

  it('puts a new flow’s first rows in batches of their own, marked fresh, and its later rows in unmarked ones', () => {
    const fresh = { ...plan('abaaba'), fresh: new Map([['b', 1]]) }
    const batches = inPlanBatches(rows({ a: 4, b: 2 }), fresh, 3)
    expect(ids(batches)).toEqual([['a1', 'a2', 'a3'], ['b1'], ['b2', 'a4']])
    expect(batches.map((batch) => batch.fresh === true)).toEqual([false, true, false])
  })

  it('puts the first turns of several new flows in shared fresh batches of at most the batch size, in the plan’s order', () => {
    // c, d, e and f just became active (one message each, two for e); a is an old flow.
    const fresh = {
      ...plan('cdeefaa'),
      fresh: new Map([
        ['c', 1],
        ['d', 1],
        ['e', 2],
        ['f', 1],
      ]),
    }
    const batches = inPlanBatches(rows({ a: 2, c: 1, d: 1, e: 2, f: 1 }), fresh, 3)
    expect(ids(batches)).toEqual([
      ['c1', 'd1', 'e1'],
      ['e2', 'f1'],
      ['a1', 'a2'],
    ])
    expect(batches.map((batch) => [batch.tenantId, batch.fresh === true])).toEqual([
      ['c', true],
      ['e', true],
      ['a', false],
    ])
    // Each row keeps its own tenant: the job names each message's.
    expect(batches[0]?.messages.map((message) => message.tenantId)).toEqual(['c', 'd', 'e'])
  })

  it('never puts a tenant’s later rows in a shared batch of first turns', () => {
    const fresh = {
      ...plan('bcbc'),
      fresh: new Map([
        ['b', 1],
        ['c', 1],
      ]),
    }
    const batches = inPlanBatches(rows({ b: 2, c: 2 }), fresh, 5)
    expect(ids(batches)).toEqual([
      ['b1', 'c1'],
      ['b2', 'c2'],
    ])
    expect(batches.map((batch) => batch.fresh === true)).toEqual([true, false])
  })

  it('packs neighbouring short batches of old flows into one job, never past a tenant’s full batch or the batch size', () => {
    // Ten tenants of one message each, then y's full batch, then x's and z's last rows.
    const many = 'abcdefghij'
    const batches = inPlanBatches(
      rows({ ...Object.fromEntries([...many].map((t) => [t, 1])), y: 4, x: 1, z: 1 }),
      plan(`${many}yyyyxz`),
      4,
    )
    expect(ids(batches)).toEqual([
      ['a1', 'b1', 'c1', 'd1'],
      ['e1', 'f1', 'g1', 'h1'],
      ['i1', 'j1'],
      ['y1', 'y2', 'y3', 'y4'],
      ['x1', 'z1'],
    ])
    // Each row keeps its tenant; the job's is its first row's.
    expect(batches[4]?.messages.map((message) => message.tenantId)).toEqual(['x', 'z'])
    expect(batches.map((batch) => batch.tenantId)).toEqual(['a', 'e', 'i', 'y', 'x'])
  })

  it('never moves a tenant’s last rows ahead of its full batch', () => {
    const batches = inPlanBatches(rows({ w: 1, x: 4 }), plan('wxxxx'), 3)
    expect(ids(batches)).toEqual([['w1'], ['x1', 'x2', 'x3'], ['x4']])
  })

  it('marks only the fresh rows that were claimed', () => {
    const fresh = { ...plan('aab'), fresh: new Map([['a', 2]]) }
    const batches = inPlanBatches(rows({ a: 1, b: 1 }), fresh, 5)
    expect(ids(batches)).toEqual([['a1'], ['b1']])
    expect(batches.map((batch) => batch.fresh === true)).toEqual([true, false])
  })

  it('refuses a batch size that is not a whole number of at least 1', () => {
    expect(() => inPlanBatches([], { order: [], counts: new Map() }, 0)).toThrow(/batchSize/)
    expect(() => inPlanBatches([], { order: [], counts: new Map() }, 1.5)).toThrow(/batchSize/)
  })
})

describe('slotBatchSize', () => {
  it('caps the batch at the fill target over the slots, never below 1, and leaves it without slots', () => {
    expect(slotBatchSize({ batchSize: 50, fillTarget: 300, workerSlots: 8 })).toBe(37)
    expect(slotBatchSize({ batchSize: 50, fillTarget: 1_000, workerSlots: 8 })).toBe(50)
    expect(slotBatchSize({ batchSize: 50, fillTarget: 4, workerSlots: 8 })).toBe(1)
    expect(slotBatchSize({ batchSize: 50, fillTarget: 300 })).toBe(50)
  })
})
