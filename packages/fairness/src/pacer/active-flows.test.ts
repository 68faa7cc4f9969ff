import { describe, expect, it } from 'vitest'
import {
  type ActiveFlowsPlan,
  type ActiveTenantPlan,
  createActiveFlows,
  FORGET_TENANT_AFTER_MS,
} from './active-flows'

const options = { horizonMs: 1000 }
const UNLIMITED = 1e9

function tenant(tenantId: string, fields: Partial<ActiveTenantPlan> = {}): ActiveTenantPlan {
  return { tenantId, weight: 1, ratePerSec: UNLIMITED, seq: 1, ...fields }
}

function total(plan: ActiveFlowsPlan): number {
  let sum = 0
  for (const count of plan.counts.values()) sum += count
  return sum
}

function expectConsistent(plan: ActiveFlowsPlan, capacity: number): void {
  expect(plan.order).toHaveLength(total(plan))
  expect(total(plan)).toBeLessThanOrEqual(capacity)
  for (const [tenantId, count] of plan.counts) {
    expect(plan.order.filter((id) => id === tenantId)).toHaveLength(count)
  }
}

describe('createActiveFlows: weighted shares', () => {
  it('shares the slots by weight when every tenant is active', () => {
    const flows = createActiveFlows(options)
    const tenants = [1, 2, 3, 5].map((weight, i) => tenant(`t${i}`, { weight }))
    flows.activate(tenants, 0)
    const released = new Map<string, number>()
    for (let tick = 0; tick < 1000; tick++) {
      const plan = flows.plan({ capacity: 7, nowMs: tick * 150 })
      expectConsistent(plan, 7)
      for (const [id, count] of plan.counts) released.set(id, (released.get(id) ?? 0) + count)
    }
    for (const { tenantId, weight } of tenants) {
      const share = (released.get(tenantId) ?? 0) / 7000
      expect(Math.abs(share - weight / 11)).toBeLessThan(0.01)
    }
  })

  it('gives a fractional weight (a slowed tenant: a quarter of weight 1) its share, a slot every fourth turn', () => {
    const flows = createActiveFlows(options)
    const tenants = [tenant('full'), tenant('slowed', { weight: 0.25 })]
    flows.activate(tenants, 0)
    const released = new Map<string, number>()
    for (let tick = 0; tick < 1000; tick++) {
      const plan = flows.plan({ capacity: 5, nowMs: tick * 150 })
      expectConsistent(plan, 5)
      for (const [id, count] of plan.counts) released.set(id, (released.get(id) ?? 0) + count)
    }
    expect(((released.get('slowed') ?? 0) / 5000).toFixed(2)).toBe((0.25 / 1.25).toFixed(2))
    expect(() => flows.activate([tenant('none', { weight: 0 })], 0)).toThrow(
      /weight must be a number above 0/,
    )
  })

  it('interleaves turns rather than releasing one tenant as a block', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('a', { weight: 2 }), tenant('b'), tenant('c')], 0)
    expect(flows.plan({ capacity: 8, nowMs: 0 }).order).toEqual(['a', 'a', 'b', 'c', 'a', 'a', 'b', 'c'])
  })

  it('finishes a weighted turn cut short by the free slots at the next tick', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('a', { weight: 2 }), tenant('b')], 0)
    const order = Array.from({ length: 6 }, (_, tick) =>
      flows.plan({ capacity: 1, nowMs: tick * 100 }).order.join(''),
    )
    expect(order.join('')).toBe('aabaab')
  })

  it('never starves a weight-1 tenant among weight-100 tenants: it is served every round', () => {
    const flows = createActiveFlows(options)
    flows.activate(
      [
        tenant('big-1', { weight: 100 }),
        tenant('big-2', { weight: 100 }),
        tenant('big-3', { weight: 100 }),
        tenant('small'),
      ],
      0,
    )
    const order: string[] = []
    for (let tick = 0; tick < 200; tick++)
      order.push(...flows.plan({ capacity: 50, nowMs: tick * 100 }).order)
    for (let start = 0; start + 301 <= order.length; start += 37) {
      expect(order.slice(start, start + 301)).toContain('small')
    }
  })
})

describe('createActiveFlows: new flows first (fq_codel)', () => {
  it('gives a tenant that just joined its first turn in the next tick, ahead of every old flow', () => {
    const flows = createActiveFlows(options)
    flows.activate(
      Array.from({ length: 1000 }, (_, i) => tenant(`old-${String(i).padStart(4, '0')}`)),
      0,
    )
    // Every old flow has had a turn: they are all on the old list now.
    for (let tick = 0; tick < 10; tick++) flows.plan({ capacity: 100, nowMs: tick * 100 })
    flows.activate([tenant('newcomer', { weight: 1 })], 1000)
    const plan = flows.plan({ capacity: 5, nowMs: 1100 })
    expect(plan.order[0]).toBe('newcomer')
    // After its turn it waits its turn like everyone else: the back of the old list.
    const later = flows.plan({ capacity: 5, nowMs: 1200 })
    expect(later.order).not.toContain('newcomer')
  })

  it('serves several new flows in the order they joined, all before the old ones', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('old-a'), tenant('old-b')], 0)
    flows.plan({ capacity: 2, nowMs: 0 })
    flows.activate([tenant('new-1'), tenant('new-2', { weight: 2 })], 100)
    expect(flows.plan({ capacity: 4, nowMs: 100 }).order).toEqual(['new-1', 'new-2', 'new-2', 'old-a'])
  })

  it('takes a tenant it already knows as a plan change, not as a new flow', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('a'), tenant('b')], 0)
    flows.plan({ capacity: 2, nowMs: 0 })
    flows.activate([tenant('b', { weight: 3, seq: 7 })], 100)
    expect(flows.seqOf('b')).toBe(7)
    expect(flows.plan({ capacity: 4, nowMs: 100 }).order).toEqual(['a', 'b', 'b', 'b'])
  })

  it('marks the slots of new flows’ turns as fresh, and no slot of an old flow', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('old-a'), tenant('old-b')], 0)
    expect(flows.plan({ capacity: 2, nowMs: 0 }).fresh).toEqual(
      new Map([
        ['old-a', 1],
        ['old-b', 1],
      ]),
    )
    flows.activate([tenant('new-1'), tenant('new-2', { weight: 2 })], 100)
    // new-1 comes round again from the old list in the same plan: only its first slot is fresh.
    const plan = flows.plan({ capacity: 8, nowMs: 100 })
    expect(plan.order).toEqual(['new-1', 'new-2', 'new-2', 'old-a', 'old-b', 'new-1', 'new-2', 'new-2'])
    expect(plan.fresh).toEqual(
      new Map([
        ['new-1', 1],
        ['new-2', 2],
      ]),
    )
    expect(flows.plan({ capacity: 4, nowMs: 200 }).fresh.size).toBe(0)
  })

  it('still counts a new flow’s turn cut short by the slots as fresh when it finishes next tick', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('old')], 0)
    flows.plan({ capacity: 1, nowMs: 0 })
    flows.activate([tenant('new', { weight: 3 })], 100)
    expect(flows.plan({ capacity: 2, nowMs: 100 }).fresh).toEqual(new Map([['new', 2]]))
    const next = flows.plan({ capacity: 2, nowMs: 200 })
    expect(next.order).toEqual(['new', 'old'])
    expect(next.fresh).toEqual(new Map([['new', 1]]))
  })
})

describe('createActiveFlows: quantum', () => {
  it('gives each turn quantum × weight slots, in the same shares as a quantum of 1', () => {
    const flows = createActiveFlows({ ...options, quantum: 3 })
    flows.activate([tenant('a'), tenant('b', { weight: 2 })], 0)
    // The first turns are the weights alone (new flows), then turns of 3 × weight.
    const plan = flows.plan({ capacity: 21, nowMs: 0 })
    expect(plan.order.slice(0, 12)).toEqual(['a', 'b', 'b', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b', 'b'])
    expect(plan.counts).toEqual(
      new Map([
        ['a', 7],
        ['b', 14],
      ]),
    )
    expect(() => createActiveFlows({ ...options, quantum: 0 })).toThrow(/quantum/)
    expect(() => createActiveFlows({ ...options, quantum: 1.5 })).toThrow(/quantum/)
  })
})

describe('createActiveFlows: new flows only', () => {
  it('serves only the tenants that just joined, and leaves the old list where it was', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('old-a'), tenant('old-b')], 0)
    flows.plan({ capacity: 2, nowMs: 0 })
    expect(flows.plan({ capacity: 5, nowMs: 100, newFlowsOnly: true }).order).toEqual([])
    flows.activate([tenant('new-1'), tenant('new-2', { weight: 2 })], 200)
    const only = flows.plan({ capacity: 10, nowMs: 200, newFlowsOnly: true })
    expect(only.order).toEqual(['new-1', 'new-2', 'new-2'])
    expect(only.fresh).toEqual(
      new Map([
        ['new-1', 1],
        ['new-2', 2],
      ]),
    )
    // The old flows' turns come next, then the newcomers' second turns, behind them.
    expect(flows.plan({ capacity: 5, nowMs: 300 }).order).toEqual([
      'old-a',
      'old-b',
      'new-1',
      'new-2',
      'new-2',
    ])
  })
})

describe('createActiveFlows: a tick costs what it releases', () => {
  it('visits only as many tenants as it releases to, with 10,000 active', () => {
    const flows = createActiveFlows(options)
    flows.activate(
      Array.from({ length: 10_000 }, (_, i) => tenant(`t${i}`)),
      0,
    )
    for (let tick = 0; tick < 50; tick++) {
      const plan = flows.plan({ capacity: 40, nowMs: tick * 100 })
      expect(total(plan)).toBe(40)
      expect(plan.visited).toBe(40)
    }
  })

  it('does not step over rate-limited tenants: they sleep until their allowance refills', () => {
    const flows = createActiveFlows(options)
    // 5,000 tenants at 1/s (one slot per second each) and one unlimited tenant.
    flows.activate(
      Array.from({ length: 5_000 }, (_, i) => tenant(`slow-${i}`, { ratePerSec: 1 })),
      0,
    )
    flows.activate([tenant('fast')], 0)
    // The first tick spends every slow tenant's one-slot allowance.
    expect(total(flows.plan({ capacity: 10_000, nowMs: 0 }))).toBeGreaterThanOrEqual(5_000)
    // Within the next second no slow tenant has a slot: a tick visits the fast one, not 5,000 others.
    const plan = flows.plan({ capacity: 20, nowMs: 100 })
    expect(plan.counts).toEqual(new Map([['fast', 20]]))
    expect(plan.visited).toBeLessThanOrEqual(21)
    // Once refilled they wake and are served again.
    const refilled = flows.plan({ capacity: 10_000, nowMs: 1_100 })
    expect(refilled.counts.get('slow-0')).toBe(1)
  })

  it('skips tenants that left without visiting them', () => {
    const flows = createActiveFlows(options)
    flows.activate(
      Array.from({ length: 100 }, (_, i) => tenant(`t${i}`)),
      0,
    )
    for (let i = 0; i < 99; i++) flows.deactivate(`t${i}`, 0)
    const plan = flows.plan({ capacity: 3, nowMs: 0 })
    expect(plan.order).toEqual(['t99', 't99', 't99'])
    expect(flows.size).toBe(1)
  })
})

describe('createActiveFlows: rates', () => {
  it('never plans more than rate × span + one allowance cap for a tenant', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('r', { ratePerSec: 50, burst: 10 }), tenant('other')], 0)
    let planned = 0
    for (let tick = 0; tick <= 100; tick++)
      planned += flows.plan({ capacity: 100, nowMs: tick * 100 }).counts.get('r') ?? 0
    // 10 s at 50/s plus the cap (burst 10).
    expect(planned).toBeLessThanOrEqual(50 * 10 + 10)
    expect(planned).toBeGreaterThanOrEqual(50 * 10 - 10)
  })

  it("spends a refused job's later token from the allowance, at most one cap into debt", () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('r', { ratePerSec: 10 })], 0)
    expect(total(flows.plan({ capacity: 100, nowMs: 0 }))).toBe(10)
    expect(flows.recentlyReleased(0, 1000)).toEqual(['r'])
    flows.refuse(new Map([['r', 1000]]), 0)
    // Ten deep in debt (the cap): a second to get back to zero, another to a full cap again.
    expect(total(flows.plan({ capacity: 100, nowMs: 1000 }))).toBe(0)
    expect(total(flows.plan({ capacity: 100, nowMs: 1500 }))).toBe(5)
  })

  it('forgets whom it released to once the window passed', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('a'), tenant('b')], 0)
    flows.plan({ capacity: 1, nowMs: 0 })
    flows.plan({ capacity: 1, nowMs: 500 })
    expect(flows.recentlyReleased(1200, 1000)).toEqual(['b'])
  })
})

describe('createActiveFlows: settling and leaving', () => {
  it('gives the unused allowance back and ends the turn', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('r', { ratePerSec: 10 })], 0)
    expect(total(flows.plan({ capacity: 100, nowMs: 0 }))).toBe(10)
    flows.settle({ tenantId: 'r', planned: 10, released: 4 })
    expect(total(flows.plan({ capacity: 100, nowMs: 1 }))).toBe(0)
    // Asleep until its allowance came back: at the wake-up the 6 given back are there.
    expect(total(flows.plan({ capacity: 100, nowMs: 100 }))).toBe(7)
  })

  it('does not let a tenant that leaves and comes back start with more than it had', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('r', { ratePerSec: 10 })], 0)
    expect(total(flows.plan({ capacity: 100, nowMs: 0 }))).toBe(10)
    flows.deactivate('r', 0)
    flows.activate([tenant('r', { ratePerSec: 10 })], 200)
    expect(total(flows.plan({ capacity: 100, nowMs: 200 }))).toBe(2)
    // Long gone, it is forgotten: back with a full allowance.
    flows.deactivate('r', 300)
    flows.deactivate('x', FORGET_TENANT_AFTER_MS + 400)
    flows.activate([tenant('r', { ratePerSec: 10 })], FORGET_TENANT_AFTER_MS + 400)
    expect(total(flows.plan({ capacity: 100, nowMs: FORGET_TENANT_AFTER_MS + 400 }))).toBe(10)
  })

  it('drops the tenants a whole read no longer lists', () => {
    const flows = createActiveFlows(options)
    flows.activate([tenant('a'), tenant('b'), tenant('c')], 0)
    flows.replaceAll([tenant('b'), tenant('d')], 100)
    expect(flows.size).toBe(2)
    expect(flows.seqOf('a')).toBeUndefined()
    expect(new Set(flows.plan({ capacity: 4, nowMs: 100 }).order)).toEqual(new Set(['b', 'd']))
  })

  it('refuses malformed tenants', () => {
    const flows = createActiveFlows(options)
    expect(() => flows.activate([tenant('w', { weight: 0 })], 0)).toThrow(/weight/)
    expect(() => flows.activate([tenant('r', { ratePerSec: 0 })], 0)).toThrow(/ratePerSec/)
    expect(() => createActiveFlows({ horizonMs: 0 })).toThrow(/horizonMs/)
  })
})
