import { describe, expect, it } from 'vitest'
import { applyOverrides, columnsOf, effectivePlan, planJson, readOverrides } from './effective-plan'
import { BUILT_IN_PLANS, planCatalog } from './plan-definition'
import { overridesOf, planInputSchema } from './plan-input'

const standard = BUILT_IN_PLANS.standard as NonNullable<(typeof BUILT_IN_PLANS)['standard']>
const free = BUILT_IN_PLANS.free as NonNullable<(typeof BUILT_IN_PLANS)['free']>

describe('named plans', () => {
  it('standard is the tenants table defaults, so tenants made before plans are on it unchanged', () => {
    expect(columnsOf(standard)).toEqual({
      ratePerSec: 10,
      burst: 20,
      weight: 1,
      txRatePerSec: null,
      txBurst: null,
      quotaDaily: null,
      quotaMonthly: null,
    })
  })

  it('PLANS adds plans and replaces a built-in one of the same name, keeping the others', () => {
    const mine = {
      ratePerSec: 2,
      burst: 2,
      weight: 1,
      transactional: null,
      quota: { daily: 5, monthly: null },
    }
    const catalog = planCatalog({ free: mine, tiny: mine })
    expect(Object.keys(catalog).sort()).toEqual(['free', 'pro', 'standard', 'tiny'])
    expect(catalog.free).toBe(mine)
    expect(catalog.standard).toEqual(standard)
  })
})

describe('effectivePlan', () => {
  it('applies overrides over the definition, a null override included', () => {
    const columns = effectivePlan(free, { weight: 3, txRatePerSec: null, txBurst: null, quotaMonthly: null })
    expect(columns).toEqual({
      ratePerSec: 1,
      burst: 5,
      weight: 3,
      txRatePerSec: null,
      txBurst: null,
      quotaDaily: 100,
      quotaMonthly: null,
    })
  })

  it('never nulls a bulk column, whatever the overrides say', () => {
    const columns = applyOverrides(columnsOf(standard), { ratePerSec: null } as never)
    expect(columns.ratePerSec).toBe(10)
  })

  it('answers the plan in the API shape, transactional null when the platform plan applies', () => {
    expect(planJson(effectivePlan(free, {}))).toEqual({
      ratePerSec: 1,
      burst: 5,
      weight: 1,
      transactional: { ratePerSec: 5, burst: 10 },
      quota: { daily: 100, monthly: 3000 },
    })
    expect(planJson(columnsOf(standard)).transactional).toBeNull()
  })

  it('reads stored overrides, dropping unknown keys and non-integers', () => {
    expect(readOverrides({ weight: 2, quotaDaily: null, nope: 3, burst: 'x', ratePerSec: 1.5 })).toEqual({
      weight: 2,
      quotaDaily: null,
    })
    expect(readOverrides(null)).toEqual({})
  })
})

describe('the plan object of the admin API', () => {
  it('sets only the columns it names', () => {
    const input = planInputSchema.parse({
      burst: 40,
      transactional: { ratePerSec: 7, burst: 9 },
      quota: { daily: null },
    })
    expect(overridesOf(input)).toEqual({ burst: 40, txRatePerSec: 7, txBurst: 9, quotaDaily: null })
    expect(overridesOf(planInputSchema.parse({ transactional: null }))).toEqual({
      txRatePerSec: null,
      txBurst: null,
    })
    expect(overridesOf(planInputSchema.parse({}))).toEqual({})
  })

  it.each([
    [{ transactional: { ratePerSec: 5 } }, 'transactional.burst'],
    [{ quota: { daily: -1 } }, 'quota.daily'],
    [{ quota: { weekly: 3 } }, 'quota'],
    [{ ratePerSec: 0 }, 'ratePerSec'],
  ])('refuses %o naming %s', (body, path) => {
    const parsed = planInputSchema.safeParse(body)
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(path)
  })
})
