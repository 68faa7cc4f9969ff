import { describe, expect, it } from 'vitest'
import { createTenantPlanCache } from './tenant-plan-cache'
import { DEFAULT_TENANT_PLAN, type TenantPlan, tenantAcceptPlan } from './tenant-plans'

const plan = (ratePerSec: number): TenantPlan => ({
  transactional: { ratePerSec, burst: null },
  quota: { daily: 10, monthly: null },
})

function setup(options: { maxEntries?: number } = {}) {
  let clock = 1_000_000
  const loads: string[] = []
  const rows = new Map<string, TenantPlan | Error>()
  const cache = createTenantPlanCache({
    ...options,
    ttlMs: 5_000,
    now: () => clock,
    load: async (tenantId) => {
      loads.push(tenantId)
      const row = rows.get(tenantId)
      if (row instanceof Error) throw row
      return row ?? null
    },
  })
  return { cache, loads, rows, advance: (ms: number) => (clock += ms) }
}

describe('the tenant plan cache', () => {
  it('reads a tenant once per TTL, shares a read between concurrent callers and sees a change after the TTL', async () => {
    const { cache, loads, rows, advance } = setup()
    rows.set('a', plan(2))
    const [first, second] = await Promise.all([cache.planOf('a'), cache.planOf('a')])
    expect(first).toEqual(plan(2))
    expect(second).toBe(first)
    rows.set('a', plan(5))
    advance(4_999)
    expect(await cache.planOf('a')).toEqual(plan(2))
    advance(1)
    expect(await cache.planOf('a')).toEqual(plan(5))
    expect(loads).toEqual(['a', 'a'])
  })

  it('gives an unknown tenant the defaults and keeps the last plan through a failed read', async () => {
    const { cache, rows, advance } = setup()
    expect(await cache.planOf('nobody')).toEqual(DEFAULT_TENANT_PLAN)
    rows.set('a', plan(2))
    await cache.planOf('a')
    rows.set('a', new Error('database away'))
    advance(10_000)
    expect(await cache.planOf('a')).toEqual(plan(2))
    rows.set('b', new Error('database away'))
    await expect(cache.planOf('b')).rejects.toThrow('database away')
  })

  it('holds at most maxEntries tenants', async () => {
    const { cache, loads } = setup({ maxEntries: 2 })
    await cache.planOf('a')
    await cache.planOf('b')
    await cache.planOf('c')
    await cache.planOf('a')
    expect(loads).toEqual(['a', 'b', 'c', 'a'])
  })
})

describe('a tenant’s accept plan', () => {
  const platform = {
    critical: { plan: { ratePerSec: 200, burst: 100 }, horizonMs: 10_000 },
    default: { plan: { ratePerSec: 200, burst: 100 }, horizonMs: 60_000 },
  }
  it('is its own rate and burst on both lanes with the platform’s horizons, the platform filling what it leaves open', () => {
    expect(tenantAcceptPlan(platform, { ratePerSec: null, burst: null })).toBe(platform)
    expect(tenantAcceptPlan(platform, { ratePerSec: 2, burst: 2 })).toEqual({
      critical: { plan: { ratePerSec: 2, burst: 2 }, horizonMs: 10_000 },
      default: { plan: { ratePerSec: 2, burst: 2 }, horizonMs: 60_000 },
    })
    expect(tenantAcceptPlan(platform, { ratePerSec: 5, burst: null }).critical.plan).toEqual({
      ratePerSec: 5,
      burst: 100,
    })
  })
})
