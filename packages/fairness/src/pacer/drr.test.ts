import { describe, expect, it } from 'vitest'
import { seededRandom } from '../test-support/seeded-random'
import {
  createPacerState,
  FORGET_TENANT_AFTER_MS,
  type PacerTenant,
  planRelease,
  type ReleasePlan,
  settleRelease,
  trackedTenantCount,
} from './drr'

const options = { horizonMs: 1000 }
const UNLIMITED = 1e9

function tenant(tenantId: string, fields: Partial<PacerTenant> = {}): PacerTenant {
  return { tenantId, weight: 1, ratePerSec: UNLIMITED, backlog: UNLIMITED, ...fields }
}

function total(plan: ReleasePlan): number {
  let sum = 0
  for (const count of plan.counts.values()) sum += count
  return sum
}

/** Every plan must be self-consistent: one order entry per counted slot. */
function expectConsistent(plan: ReleasePlan, capacity: number): void {
  expect(plan.order).toHaveLength(total(plan))
  expect(total(plan)).toBeLessThanOrEqual(capacity)
  for (const [tenantId, count] of plan.counts) {
    expect(plan.order.filter((id) => id === tenantId)).toHaveLength(count)
  }
}

describe('planRelease: weighted shares', () => {
  it('shares the slots by weight when every tenant is backlogged', () => {
    const state = createPacerState()
    const tenants = [
      tenant('a', { weight: 1 }),
      tenant('b', { weight: 2 }),
      tenant('c', { weight: 3 }),
      tenant('d', { weight: 5 }),
    ]
    const released = new Map<string, number>()
    for (let tick = 0; tick < 1000; tick++) {
      const plan = planRelease(state, { tenants, capacity: 7, nowMs: tick * 150 }, options)
      expectConsistent(plan, 7)
      for (const [id, count] of plan.counts) released.set(id, (released.get(id) ?? 0) + count)
    }
    for (const { tenantId, weight } of tenants) {
      const share = (released.get(tenantId) ?? 0) / 7000
      expect(Math.abs(share - weight / 11)).toBeLessThan(0.01)
    }
  })

  it('interleaves rounds rather than releasing one tenant as a block', () => {
    const state = createPacerState()
    const tenants = [tenant('a', { weight: 2 }), tenant('b'), tenant('c')]
    const plan = planRelease(state, { tenants, capacity: 8, nowMs: 0 }, options)
    expect(plan.order).toEqual(['a', 'a', 'b', 'c', 'a', 'a', 'b', 'c'])
  })

  it('rotates the start across ticks, so one free slot per tick alternates between tenants', () => {
    const state = createPacerState()
    const tenants = [tenant('b'), tenant('a'), tenant('c')]
    const order = Array.from({ length: 6 }, (_, tick) =>
      planRelease(state, { tenants, capacity: 1, nowMs: tick * 100 }, options).order.join(''),
    )
    expect(order.join('')).toBe('abcabc')
  })

  it('finishes a weighted turn cut short by the free slots at the next tick', () => {
    const state = createPacerState()
    const tenants = [tenant('a', { weight: 2 }), tenant('b')]
    const order = Array.from({ length: 6 }, (_, tick) =>
      planRelease(state, { tenants, capacity: 1, nowMs: tick * 100 }, options).order.join(''),
    )
    expect(order.join('')).toBe('aabaab')
  })

  it('never starves a weight-1 tenant among weight-100 tenants: it is served every round', () => {
    const state = createPacerState()
    const tenants = [
      tenant('big-1', { weight: 100 }),
      tenant('big-2', { weight: 100 }),
      tenant('big-3', { weight: 100 }),
      tenant('small'),
    ]
    const order: string[] = []
    for (let tick = 0; tick < 200; tick++) {
      order.push(...planRelease(state, { tenants, capacity: 50, nowMs: tick * 100 }, options).order)
    }
    const roundLength = 301
    for (let start = 0; start + roundLength <= order.length; start += 37) {
      expect(order.slice(start, start + roundLength)).toContain('small')
    }
  })

  it('banks no credit while idle: a tenant coming back gets its share, not a catch-up', () => {
    const state = createPacerState()
    for (let tick = 0; tick < 10; tick++) {
      planRelease(
        state,
        { tenants: [tenant('a'), tenant('b', { backlog: 0 })], capacity: 4, nowMs: tick * 100 },
        options,
      )
    }
    const plan = planRelease(
      state,
      { tenants: [tenant('a'), tenant('b')], capacity: 4, nowMs: 1000 },
      options,
    )
    expect(plan.counts).toEqual(
      new Map([
        ['a', 2],
        ['b', 2],
      ]),
    )
  })
})

describe('planRelease: allowance', () => {
  it('gives a lone tenant min(free slots, allowance), a full allowance at first sight', () => {
    const state = createPacerState()
    const alone = [tenant('a', { ratePerSec: 20 })]
    expect(planRelease(state, { tenants: alone, capacity: 100, nowMs: 0 }, options).counts.get('a')).toBe(20)
    // 100 ms later two more rows are allowed.
    expect(planRelease(state, { tenants: alone, capacity: 100, nowMs: 100 }, options).counts.get('a')).toBe(2)
    const other = createPacerState()
    expect(planRelease(other, { tenants: alone, capacity: 5, nowMs: 0 }, options).counts.get('a')).toBe(5)
  })

  it('releases a small campaign at once', () => {
    const state = createPacerState()
    const plan = planRelease(
      state,
      { tenants: [tenant('a', { ratePerSec: 50, backlog: 30 })], capacity: 500, nowMs: 0 },
      options,
    )
    expect(plan.counts.get('a')).toBe(30)
  })

  it('lets at least one row through for a rate below one per horizon', () => {
    const state = createPacerState()
    const slow = [tenant('a', { ratePerSec: 0.1 })]
    expect(planRelease(state, { tenants: slow, capacity: 10, nowMs: 0 }, options).counts.get('a')).toBe(1)
    expect(planRelease(state, { tenants: slow, capacity: 10, nowMs: 5000 }, options).counts.size).toBe(0)
    expect(planRelease(state, { tenants: slow, capacity: 10, nowMs: 10_000 }, options).counts.get('a')).toBe(
      1,
    )
  })

  it('never releases more than rate × span + rate × horizon over any span, with claims coming up short', () => {
    const random = seededRandom(42)
    const state = createPacerState()
    const rates: Record<string, number> = { slow: 5, mid: 20, fast: 120 }
    const history: Record<string, { atMs: number; released: number }[]> = { slow: [], mid: [], fast: [] }
    const tenants = Object.entries(rates).map(([tenantId, ratePerSec]) =>
      tenant(tenantId, { ratePerSec, weight: 1 + Math.floor(random() * 3) }),
    )
    let nowMs = 0
    for (let tick = 0; tick < 300; tick++) {
      nowMs += 100 + random() * 100
      const capacity = Math.floor(random() * 80)
      const plan = planRelease(state, { tenants, capacity, nowMs }, options)
      expectConsistent(plan, capacity)
      for (const [tenantId, planned] of plan.counts) {
        const released = random() < 0.2 ? Math.floor(random() * planned) : planned
        settleRelease(state, { tenantId, planned, released })
        history[tenantId]?.push({ atMs: nowMs, released })
      }
    }
    for (const [tenantId, events] of Object.entries(history)) {
      const rate = rates[tenantId] as number
      let worstExcess = Number.NEGATIVE_INFINITY
      for (let from = 0; from < events.length; from++) {
        const startMs = (events[from] as { atMs: number }).atMs
        let sum = 0
        for (const { atMs, released } of events.slice(from)) {
          sum += released
          const bound = (rate * (atMs - startMs)) / 1000 + (rate * options.horizonMs) / 1000
          worstExcess = Math.max(worstExcess, sum - bound)
        }
      }
      expect(worstExcess).toBeLessThanOrEqual(1e-9)
    }
  })

  it('obeys a lowered rate at the next tick: the cap shrinks at once', () => {
    const state = createPacerState()
    const first = planRelease(
      state,
      { tenants: [tenant('a', { ratePerSec: 100 })], capacity: 30, nowMs: 0 },
      options,
    )
    expect(first.counts.get('a')).toBe(30)
    // 70 rows of allowance were left, but the new cap is 10 rows.
    const lowered = [tenant('a', { ratePerSec: 10 })]
    expect(
      planRelease(state, { tenants: lowered, capacity: 1000, nowMs: 100 }, options).counts.get('a'),
    ).toBe(10)
    let released = 0
    for (let nowMs = 200; nowMs <= 10_100; nowMs += 100) {
      released +=
        planRelease(state, { tenants: lowered, capacity: 1000, nowMs }, options).counts.get('a') ?? 0
    }
    expect(released).toBe(100)
  })

  it("spends a refused job's later token from the allowance, at most one cap into debt", () => {
    const state = createPacerState()
    const plan = (nowMs: number, refusals?: number) =>
      planRelease(
        state,
        {
          tenants: [
            tenant('a', { ratePerSec: 100, burst: 20, ...(refusals ? { refusals } : {}) }),
            tenant('b'),
          ],
          capacity: 1000,
          nowMs,
        },
        options,
      )
    expect(plan(0).counts.get('a')).toBe(20)
    // 100 ms later 10 rows have accrued; the bucket refused 4 of the first 20: 6 go out.
    const debited = plan(100, 4)
    expect(debited.counts.get('a')).toBe(6)
    expect(debited.counts.get('b')).toBeGreaterThan(0)
    expect(plan(200).counts.get('a')).toBe(10)
    // A plan cut refuses 100 queued jobs: the tenant waits 200 ms (one cap of debt), then goes on.
    expect(plan(300, 100).counts.get('a') ?? 0).toBe(0)
    expect(plan(400).counts.get('a') ?? 0).toBe(0)
    expect(plan(500).counts.get('a') ?? 0).toBe(0)
    expect(plan(600).counts.get('a')).toBe(10)
  })
})

describe('planRelease: the bulk queue', () => {
  it('keeps a simulated queue under its high-water mark while keeping it busy', () => {
    const random = seededRandom(3)
    const state = createPacerState()
    const highWater = 500
    const drainPerSec = 300
    const tenants = Array.from({ length: 12 }, (_, i) =>
      tenant(`t${i}`, { weight: 1 + (i % 4), ratePerSec: 40 + i * 10 }),
    )
    let depth = 0
    let deepest = 0
    let nowMs = 0
    for (let tick = 0; tick < 500; tick++) {
      const elapsedMs = 100 + random() * 100
      nowMs += elapsedMs
      depth = Math.max(0, depth - Math.round((drainPerSec * elapsedMs) / 1000))
      const capacity = highWater - depth
      const plan = planRelease(state, { tenants, capacity, nowMs }, options)
      expectConsistent(plan, capacity)
      depth += total(plan)
      expect(depth).toBeLessThanOrEqual(highWater)
      deepest = Math.max(deepest, depth)
    }
    expect(deepest).toBeGreaterThan(highWater * 0.9)
  })

  it('plans nothing with no free slots and keeps whose turn it is', () => {
    const state = createPacerState()
    const tenants = [tenant('a'), tenant('b')]
    expect(planRelease(state, { tenants, capacity: 1, nowMs: 0 }, options).order).toEqual(['a'])
    expect(planRelease(state, { tenants, capacity: 0, nowMs: 100 }, options).order).toEqual([])
    expect(planRelease(state, { tenants, capacity: 1, nowMs: 200 }, options).order).toEqual(['b'])
  })
})

describe('settleRelease', () => {
  it('gives the unused allowance back', () => {
    const state = createPacerState()
    const alone = [tenant('a', { ratePerSec: 20 })]
    expect(planRelease(state, { tenants: alone, capacity: 100, nowMs: 0 }, options).counts.get('a')).toBe(20)
    settleRelease(state, { tenantId: 'a', planned: 20, released: 5 })
    expect(planRelease(state, { tenants: alone, capacity: 100, nowMs: 0 }, options).counts.get('a')).toBe(15)
  })

  it('treats the tenant as emptied: a turn cut short is not resumed', () => {
    const state = createPacerState()
    const tenants = [tenant('a', { weight: 3 }), tenant('b')]
    expect(planRelease(state, { tenants, capacity: 2, nowMs: 0 }, options).order).toEqual(['a', 'a'])
    settleRelease(state, { tenantId: 'a', planned: 2, released: 1 })
    expect(planRelease(state, { tenants, capacity: 1, nowMs: 100 }, options).order).toEqual(['b'])
  })

  it('changes nothing when every planned row was released', () => {
    const state = createPacerState()
    const tenants = [tenant('a', { weight: 3 }), tenant('b')]
    planRelease(state, { tenants, capacity: 2, nowMs: 0 }, options)
    settleRelease(state, { tenantId: 'a', planned: 2, released: 2 })
    expect(planRelease(state, { tenants, capacity: 1, nowMs: 100 }, options).order).toEqual(['a'])
  })
})

describe('pacer state', () => {
  it('forgets tenants not seen for a long time', () => {
    const state = createPacerState()
    planRelease(
      state,
      { tenants: [tenant('a', { ratePerSec: 10 }), tenant('b')], capacity: 10, nowMs: 0 },
      options,
    )
    expect(trackedTenantCount(state)).toBe(2)
    for (let nowMs = 60_000; nowMs <= FORGET_TENANT_AFTER_MS + 60_000; nowMs += 60_000) {
      planRelease(state, { tenants: [tenant('b')], capacity: 10, nowMs }, options)
    }
    expect(trackedTenantCount(state)).toBe(1)
  })

  it('refuses malformed tenants', () => {
    expect(() =>
      planRelease(
        createPacerState(),
        { tenants: [tenant('a', { refusals: -1 })], capacity: 1, nowMs: 0 },
        options,
      ),
    ).toThrow(/refusals/)
    const state = createPacerState()
    const plan = (tenants: PacerTenant[]) => planRelease(state, { tenants, capacity: 1, nowMs: 0 }, options)
    expect(() => plan([tenant('a', { weight: 0 })])).toThrow(RangeError)
    expect(() => plan([tenant('a', { weight: 1.5 })])).toThrow(RangeError)
    expect(() => plan([tenant('a', { ratePerSec: 0 })])).toThrow(RangeError)
    expect(() => plan([tenant('a', { backlog: -1 })])).toThrow(RangeError)
    expect(() => plan([tenant('a'), tenant('a')])).toThrow(RangeError)
  })
})
