import { describe, expect, it } from 'vitest'
import {
  createFairShareState,
  type FairShareState,
  FORGET_PROVIDER_AFTER_MS,
  planFairShare,
  type ShareBacklog,
  type SharePlan,
  type ShareProvider,
  type ShareTenant,
  settleFairShare,
  trackedProviderCount,
} from './fair-share'

const MUCH = 1e9

interface World {
  providers: ShareProvider[]
  tenants: ShareTenant[]
  backlogs: ShareBacklog[]
}

function tenant(tenantId: string, fields: Partial<ShareTenant> = {}): ShareTenant {
  return { tenantId, weight: 1, allowance: MUCH, ...fields }
}

function provider(name: string, budget: number, reserved?: number): ShareProvider {
  return reserved === undefined ? { provider: name, budget } : { provider: name, budget, reserved }
}

/** Every tenant listed has `backlog` waiting at each of `providers`. */
function everywhere(tenants: ShareTenant[], providers: string[], backlog = MUCH): ShareBacklog[] {
  return tenants.flatMap((t) => providers.map((name) => ({ tenantId: t.tenantId, provider: name, backlog })))
}

function count(plan: SharePlan, tenantId: string, providerName?: string): number {
  let sum = 0
  for (const release of plan.releases) {
    if (release.tenantId === tenantId && (providerName === undefined || release.provider === providerName)) {
      sum += release.count
    }
  }
  return sum
}

function atProvider(plan: SharePlan, providerName: string): number {
  return plan.releases.filter((r) => r.provider === providerName).reduce((sum, r) => sum + r.count, 0)
}

/** Jain's index, (Σx)² / (n·Σx²): 1 when all are equal. */
function jain(values: number[]): number {
  const sum = values.reduce((a, b) => a + b, 0)
  const squares = values.reduce((a, b) => a + b * b, 0)
  return squares === 0 ? 1 : (sum * sum) / (values.length * squares)
}

/** mulberry32, so the random worlds replay identically. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The plan keeps every bound, and is work-conserving: budget is left only where no one can use it. */
function expectWithinBounds(plan: SharePlan, world: World): void {
  const slots = new Map<string, number>()
  for (const slot of plan.order) {
    const key = `${slot.tenantId}/${slot.provider}`
    slots.set(key, (slots.get(key) ?? 0) + 1)
  }
  for (const release of plan.releases) {
    expect(release.count).toBeGreaterThan(0)
    expect(slots.get(`${release.tenantId}/${release.provider}`)).toBe(release.count)
  }
  expect(plan.order).toHaveLength(plan.releases.reduce((sum, r) => sum + r.count, 0))
  const allowanceLeft = new Map<string, number>()
  for (const t of world.tenants) {
    const used = count(plan, t.tenantId)
    expect(used).toBeLessThanOrEqual(Math.floor(t.allowance))
    allowanceLeft.set(t.tenantId, Math.floor(t.allowance) - used)
  }
  for (const entry of world.backlogs) {
    expect(count(plan, entry.tenantId, entry.provider)).toBeLessThanOrEqual(Math.floor(entry.backlog))
  }
  for (const p of world.providers) {
    const usable = Math.max(0, Math.floor(p.budget) - Math.ceil(p.reserved ?? 0))
    const used = atProvider(plan, p.provider)
    expect(used).toBeLessThanOrEqual(usable)
    if (used < usable) {
      for (const entry of world.backlogs.filter((b) => b.provider === p.provider)) {
        const starved =
          (allowanceLeft.get(entry.tenantId) ?? 0) >= 1 &&
          Math.floor(entry.backlog) > count(plan, entry.tenantId, entry.provider)
        expect(starved, `${entry.tenantId} left waiting at ${p.provider} with budget to spare`).toBe(false)
      }
    }
  }
}

function plan(state: FairShareState, world: World, nowMs: number): SharePlan {
  const result = planFairShare(state, { ...world, nowMs })
  expectWithinBounds(result, world)
  return result
}

describe('planFairShare: inside one provider', () => {
  it('shares a provider by weight over many ticks (Jain ≥ 0.95 by weight)', () => {
    const state = createFairShareState()
    const tenants = [
      tenant('a', { weight: 1 }),
      tenant('b', { weight: 2 }),
      tenant('c', { weight: 3 }),
      tenant('d', { weight: 5 }),
    ]
    const world = { providers: [provider('google', 7)], tenants, backlogs: everywhere(tenants, ['google']) }
    const released = new Map<string, number>()
    for (let tick = 0; tick < 1000; tick++) {
      for (const r of plan(state, world, tick * 100).releases) {
        released.set(r.tenantId, (released.get(r.tenantId) ?? 0) + r.count)
      }
    }
    const perWeight = tenants.map((t) => (released.get(t.tenantId) ?? 0) / t.weight)
    expect(jain(perWeight)).toBeGreaterThanOrEqual(0.99)
    for (const t of tenants)
      expect(Math.abs((released.get(t.tenantId) ?? 0) / 7000 - t.weight / 11)).toBeLessThan(0.01)
  })

  it('keeps the weights at every provider of a random, changing world', () => {
    const random = seededRandom(7)
    const state = createFairShareState()
    const providers = ['google', 'microsoft', 'yahoo']
    const tenants = Array.from({ length: 8 }, (_, i) => tenant(`t${i}`, { weight: 1 + (i % 4) }))
    const released = new Map<string, number>()
    for (let tick = 0; tick < 600; tick++) {
      const world = {
        providers: providers.map((name) => provider(name, Math.floor(random() * 40))),
        tenants,
        backlogs: everywhere(tenants, providers),
      }
      for (const r of plan(state, world, tick * 100).releases) {
        const key = `${r.provider}/${r.tenantId}`
        released.set(key, (released.get(key) ?? 0) + r.count)
      }
    }
    for (const name of providers) {
      const perWeight = tenants.map((t) => (released.get(`${name}/${t.tenantId}`) ?? 0) / t.weight)
      expect(jain(perWeight)).toBeGreaterThanOrEqual(0.95)
    }
  })

  it('interleaves turns rather than releasing one tenant as a block', () => {
    const tenants = [tenant('a', { weight: 2 }), tenant('b'), tenant('c')]
    const world = { providers: [provider('google', 8)], tenants, backlogs: everywhere(tenants, ['google']) }
    const result = plan(createFairShareState(), world, 0)
    expect(result.order.map((slot) => slot.tenantId)).toEqual(['a', 'a', 'b', 'c', 'a', 'a', 'b', 'c'])
  })

  it('finishes a weighted turn cut short by the budget at the next tick, and rotates the start', () => {
    const state = createFairShareState()
    const tenants = [tenant('a', { weight: 2 }), tenant('b')]
    const world = { providers: [provider('google', 1)], tenants, backlogs: everywhere(tenants, ['google']) }
    const order = Array.from({ length: 6 }, (_, tick) => plan(state, world, tick * 100).order[0]?.tenantId)
    expect(order.join('')).toBe('aabaab')
  })

  it("sends a small tenant's first message for a busy provider within one round", () => {
    const state = createFairShareState()
    const busy = Array.from({ length: 20 }, (_, i) =>
      tenant(`busy-${String(i).padStart(2, '0')}`, { weight: 10 }),
    )
    const busyWorld = {
      providers: [provider('google', 7)],
      tenants: busy,
      backlogs: everywhere(busy, ['google']),
    }
    for (let tick = 0; tick < 37; tick++) plan(state, busyWorld, tick * 100)
    const small = tenant('a-small')
    const world = {
      providers: busyWorld.providers,
      tenants: [...busy, small],
      backlogs: [...busyWorld.backlogs, { tenantId: 'a-small', provider: 'google', backlog: 1 }],
    }
    const roundLength = 20 * 10 + 1
    const released: string[] = []
    for (let tick = 37; released.length < roundLength; tick++) {
      released.push(...plan(state, world, tick * 100).order.map((slot) => slot.tenantId))
      if (released.includes('a-small')) break
    }
    expect(released).toContain('a-small')
    expect(released.indexOf('a-small')).toBeLessThan(roundLength)
  })

  it('banks no credit while idle: a tenant coming back gets its share, not a catch-up', () => {
    const state = createFairShareState()
    const tenants = [tenant('a'), tenant('b')]
    const providers = [provider('google', 4)]
    for (let tick = 0; tick < 10; tick++) {
      plan(
        state,
        { providers, tenants, backlogs: everywhere([tenants[0] as ShareTenant], ['google']) },
        tick * 100,
      )
    }
    const back = plan(state, { providers, tenants, backlogs: everywhere(tenants, ['google']) }, 1000)
    expect(count(back, 'a')).toBe(2)
    expect(count(back, 'b')).toBe(2)
  })

  it('gives the tenants budget − reserved, the reserve being the critical lane’s', () => {
    const tenants = [tenant('a'), tenant('b')]
    const world = {
      providers: [provider('google', 10, 3)],
      tenants,
      backlogs: everywhere(tenants, ['google']),
    }
    expect(plan(createFairShareState(), world, 0).order).toHaveLength(7)
    const all = { providers: [provider('google', 2, 3)], tenants, backlogs: everywhere(tenants, ['google']) }
    expect(plan(createFairShareState(), all, 0).order).toHaveLength(0)
  })
})

describe('planFairShare: across providers', () => {
  it("does not let a paused provider slow a tenant's mail for the others", () => {
    const tenants = [tenant('a', { allowance: 10 }), tenant('b', { allowance: 10 })]
    const paused = {
      providers: [provider('google', 0), provider('microsoft', 10)],
      tenants,
      backlogs: everywhere(tenants, ['google', 'microsoft']),
    }
    const withoutGoogleMail = {
      providers: paused.providers,
      tenants,
      backlogs: everywhere(tenants, ['microsoft']),
    }
    const stateA = createFairShareState()
    const stateB = createFairShareState()
    for (let tick = 0; tick < 20; tick++) {
      const blocked = plan(stateA, paused, tick * 100)
      const free = plan(stateB, withoutGoogleMail, tick * 100)
      expect(atProvider(blocked, 'google')).toBe(0)
      expect(blocked.order).toEqual(free.order)
      expect(count(blocked, 'a', 'microsoft')).toBe(5)
    }
  })

  it('spends the allowance a throttled provider cannot take at the others', () => {
    const tenants = [tenant('a', { allowance: 10 })]
    const world = {
      providers: [provider('google', 1), provider('microsoft', 100)],
      tenants,
      backlogs: everywhere(tenants, ['google', 'microsoft']),
    }
    const result = plan(createFairShareState(), world, 0)
    expect(count(result, 'a', 'google')).toBe(1)
    expect(count(result, 'a', 'microsoft')).toBe(9)
  })

  it("shares a tenant's allowance across its providers, within a tick and from tick to tick", () => {
    const tenants = [tenant('a', { allowance: 6 })]
    const names = ['google', 'microsoft', 'yahoo']
    const world = {
      providers: names.map((n) => provider(n, 100)),
      tenants,
      backlogs: everywhere(tenants, names),
    }
    const once = plan(createFairShareState(), world, 0)
    for (const name of names) expect(count(once, 'a', name)).toBe(2)

    // One message a tick visits the providers it has mail for in turn, skipping the one it has none for.
    const state = createFairShareState()
    const trickle = {
      providers: names.map((n) => provider(n, 100)),
      tenants: [tenant('a', { allowance: 1 })],
      backlogs: everywhere(tenants, ['google', 'yahoo']),
    }
    const visits = Array.from({ length: 6 }, (_, tick) => plan(state, trickle, tick * 100).order[0]?.provider)
    expect(visits).toEqual(['google', 'yahoo', 'google', 'yahoo', 'google', 'yahoo'])
  })

  it('costs no tenant anything at a paused provider and resumes its cut turn when it reopens', () => {
    const state = createFairShareState()
    const tenants = [tenant('a', { weight: 3 }), tenant('b')]
    const backlogs = everywhere(tenants, ['google'])
    const first = plan(state, { providers: [provider('google', 2)], tenants, backlogs }, 0)
    expect(first.order.map((s) => s.tenantId)).toEqual(['a', 'a'])
    for (let tick = 1; tick <= 5; tick++) {
      const paused = plan(state, { providers: [provider('google', 0)], tenants, backlogs }, tick * 100)
      expect(paused.order).toEqual([])
    }
    const reopened = plan(state, { providers: [provider('google', 2)], tenants, backlogs }, 600)
    expect(reopened.order.map((s) => s.tenantId)).toEqual(['a', 'b'])
  })

  it('lets one tenant be slowed at a provider (its backlog capped) while the others take the rest', () => {
    const state = createFairShareState()
    const tenants = [tenant('a'), tenant('b')]
    const world = {
      providers: [provider('google', 10)],
      tenants,
      backlogs: [
        { tenantId: 'a', provider: 'google', backlog: 1 },
        { tenantId: 'b', provider: 'google', backlog: MUCH },
      ],
    }
    for (let tick = 0; tick < 5; tick++) {
      const result = plan(state, world, tick * 100)
      expect(count(result, 'a')).toBe(1)
      expect(count(result, 'b')).toBe(9)
    }
  })

  it('keeps every bound in random worlds: budgets, reserves, allowances, backlogs', () => {
    const random = seededRandom(42)
    const state = createFairShareState()
    const names = Array.from({ length: 6 }, (_, i) => `p${i}`)
    for (let tick = 0; tick < 300; tick++) {
      const tenants = Array.from({ length: 10 }, (_, i) =>
        tenant(`t${i}`, { weight: 1 + Math.floor(random() * 5), allowance: Math.floor(random() * 30) }),
      )
      const providers = names.map((name) => {
        const budget = random() < 0.2 ? 0 : Math.floor(random() * 50)
        return random() < 0.3 ? provider(name, budget, Math.floor(random() * 10)) : provider(name, budget)
      })
      const backlogs = everywhere(tenants, names).filter(() => random() < 0.6)
      for (const entry of backlogs) entry.backlog = Math.floor(random() * 20)
      const result = plan(state, { providers, tenants, backlogs }, tick * 100)
      for (const r of result.releases) {
        const settled = random() < 0.1 ? Math.floor(random() * r.count) : r.count
        settleFairShare(state, {
          tenantId: r.tenantId,
          provider: r.provider,
          planned: r.count,
          released: settled,
        })
      }
    }
  })

  it('plans 10,000 tenants × 50 providers in well under a few seconds a tick', () => {
    const state = createFairShareState()
    const names = Array.from({ length: 50 }, (_, i) => `provider-${i}`)
    const tenants = Array.from({ length: 10_000 }, (_, i) =>
      tenant(`tenant-${i}`, { weight: 1 + (i % 3), allowance: 20 }),
    )
    const world = {
      providers: names.map((name) => provider(name, 2_000)),
      tenants,
      backlogs: everywhere(tenants, names, 100),
    }
    const startedMs = performance.now()
    let released = 0
    for (let tick = 0; tick < 3; tick++)
      released += planFairShare(state, { ...world, nowMs: tick * 100 }).order.length
    const elapsedMs = performance.now() - startedMs
    // 100,000 budget a tick, 200,000 allowance: every budget is spent.
    expect(released).toBe(3 * 50 * 2_000)
    expect(elapsedMs).toBeLessThan(15_000)
  })
})

describe('settleFairShare', () => {
  it('treats a pair that came up short as emptied: its cut turn is not resumed', () => {
    const state = createFairShareState()
    const tenants = [tenant('a', { weight: 3 }), tenant('b')]
    const world = { providers: [provider('google', 2)], tenants, backlogs: everywhere(tenants, ['google']) }
    expect(plan(state, world, 0).order.map((s) => s.tenantId)).toEqual(['a', 'a'])
    settleFairShare(state, { tenantId: 'a', provider: 'google', planned: 2, released: 1 })
    expect(plan(state, world, 100).order.map((s) => s.tenantId)).toEqual(['b', 'a'])
  })

  it('changes nothing when every planned message was released', () => {
    const state = createFairShareState()
    const tenants = [tenant('a', { weight: 3 }), tenant('b')]
    const world = { providers: [provider('google', 2)], tenants, backlogs: everywhere(tenants, ['google']) }
    plan(state, world, 0)
    settleFairShare(state, { tenantId: 'a', provider: 'google', planned: 2, released: 2 })
    expect(plan(state, world, 100).order.map((s) => s.tenantId)).toEqual(['a', 'b'])
  })
})

describe('fair-share state', () => {
  it('forgets providers not seen for a long time, and remembers nothing per tenant', () => {
    const state = createFairShareState()
    const tenants = Array.from({ length: 1_000 }, (_, i) => tenant(`t${i}`))
    plan(
      state,
      {
        providers: [provider('google', 10), provider('yahoo', 10)],
        tenants,
        backlogs: everywhere(tenants, ['google', 'yahoo']),
      },
      0,
    )
    expect(trackedProviderCount(state)).toBe(2)
    for (let nowMs = 60_000; nowMs <= FORGET_PROVIDER_AFTER_MS + 60_000; nowMs += 60_000) {
      plan(state, { providers: [provider('google', 10)], tenants: [], backlogs: [] }, nowMs)
    }
    expect(trackedProviderCount(state)).toBe(1)
  })

  it('refuses malformed input, naming what is wrong', () => {
    const state = createFairShareState()
    const run = (world: Partial<World>) =>
      planFairShare(state, {
        providers: [provider('google', 1)],
        tenants: [tenant('a')],
        backlogs: [],
        nowMs: 0,
        ...world,
      })
    expect(() => run({ tenants: [tenant('a', { weight: 0 })] })).toThrow(/weight/)
    expect(() => run({ tenants: [tenant('a', { weight: 1.5 })] })).toThrow(/weight/)
    expect(() => run({ tenants: [tenant('a', { allowance: -1 })] })).toThrow(/allowance/)
    expect(() => run({ tenants: [tenant('a'), tenant('a')] })).toThrow(/tenant a is listed twice/)
    expect(() => run({ providers: [provider('google', -1)] })).toThrow(/budget/)
    expect(() => run({ providers: [provider('google', Number.NaN)] })).toThrow(/budget/)
    expect(() => run({ providers: [provider('google', 1, -2)] })).toThrow(/reserved/)
    expect(() => run({ providers: [provider('google', 1), provider('google', 2)] })).toThrow(/listed twice/)
    expect(() => run({ backlogs: [{ tenantId: 'z', provider: 'google', backlog: 1 }] })).toThrow(
      /tenant z .*not listed/,
    )
    expect(() => run({ backlogs: [{ tenantId: 'a', provider: 'yahoo', backlog: 1 }] })).toThrow(
      /provider yahoo.*not listed/,
    )
    expect(() => run({ backlogs: [{ tenantId: 'a', provider: 'google', backlog: -1 }] })).toThrow(/backlog/)
    expect(() =>
      run({
        backlogs: [
          { tenantId: 'a', provider: 'google', backlog: 1 },
          { tenantId: 'a', provider: 'google', backlog: 2 },
        ],
      }),
    ).toThrow(/listed twice/)
    expect(() =>
      planFairShare({ kind: 'fair-share-state' }, { providers: [], tenants: [], backlogs: [], nowMs: 0 }),
    ).toThrow(/createFairShareState/)
  })
})
