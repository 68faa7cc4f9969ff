import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { columnsOf, planCatalog } from '../plans'
import { deriveApiKey } from './derive-api-key'
import { auditedPlan, nextPlan } from './plan-change'
import { hashRequest } from './provision-tenant'

const plans = planCatalog()
const standardColumns = columnsOf(plans.standard as NonNullable<(typeof plans)['standard']>)

describe('nextPlan', () => {
  it('overrides alone change only their columns (a hand-set tenant from before plans keeps the rest)', () => {
    const handSet = { ...standardColumns, ratePerSec: 77 }
    const next = nextPlan(
      { planName: 'standard', planOverrides: {}, plan: handSet },
      { overrides: { weight: 3 } },
      plans,
    )
    expect(next).toEqual({
      planName: 'standard',
      planOverrides: { weight: 3 },
      plan: { ...handSet, weight: 3 },
    })
  })

  it('naming a plan recomputes every column from it, keeping the overrides', () => {
    const next = nextPlan(
      { planName: 'standard', planOverrides: { weight: 3 }, plan: { ...standardColumns, weight: 3 } },
      { planName: 'free' },
      plans,
    )
    expect(next.planName).toBe('free')
    expect(next.planOverrides).toEqual({ weight: 3 })
    expect(next.plan).toEqual({
      ratePerSec: 1,
      burst: 5,
      weight: 3,
      txRatePerSec: 5,
      txBurst: 10,
      quotaDaily: 100,
      quotaMonthly: 3000,
    })
  })

  it('resetOverrides drops the old overrides before the new ones apply', () => {
    const next = nextPlan(
      { planName: 'pro', planOverrides: { weight: 9, quotaDaily: 5 }, plan: standardColumns },
      { resetOverrides: true, overrides: { burst: 300 } },
      plans,
    )
    expect(next.planOverrides).toEqual({ burst: 300 })
    expect(next.plan).toMatchObject({ ratePerSec: 50, burst: 300, weight: 4, quotaDaily: null })
  })

  it('refuses an unknown plan naming planName and the plans there are', () => {
    const attempt = () =>
      nextPlan(
        { planName: 'standard', planOverrides: {}, plan: standardColumns },
        { planName: 'gold' },
        plans,
      )
    expect(attempt).toThrow(AppError)
    try {
      attempt()
    } catch (error) {
      expect((error as AppError).details).toEqual([
        { path: 'planName', message: 'is not a plan; the plans are free, pro, standard (PLANS)' },
      ])
    }
  })

  it('audits the plan with its fields at the top, as entries before named plans had them', () => {
    expect(auditedPlan({ planName: 'standard', planOverrides: {}, plan: standardColumns })).toMatchObject({
      ratePerSec: 10,
      burst: 20,
      weight: 1,
      planName: 'standard',
      overrides: {},
    })
  })
})

describe('provisioning helpers', () => {
  const actor = { label: 'admin-token', ipAddress: null }

  it('hashes a request the same whatever its key order, and differently for another body', () => {
    const a = hashRequest({ name: 'A', overrides: { weight: 2, burst: 3 }, idempotencyKey: 'k', actor })
    const b = hashRequest({ name: 'A', overrides: { burst: 3, weight: 2 }, idempotencyKey: 'k', actor })
    expect(a).toBe(b)
    expect(hashRequest({ name: 'A', planName: 'standard', idempotencyKey: 'k', actor })).toBe(
      hashRequest({ name: 'A', idempotencyKey: 'k', actor }),
    )
    expect(hashRequest({ name: 'B', idempotencyKey: 'k', actor })).not.toBe(
      hashRequest({ name: 'A', idempotencyKey: 'k', actor }),
    )
  })

  it('derives a first key of the usual form, the same for the same tenant and key, else another', () => {
    const one = deriveApiKey('s'.repeat(32), { tenantId: 't1', idempotencyKey: 'k' })
    expect(one).toMatch(/^fl_[A-Za-z0-9_-]{32}$/)
    expect(deriveApiKey('s'.repeat(32), { tenantId: 't1', idempotencyKey: 'k' })).toBe(one)
    expect(deriveApiKey('s'.repeat(32), { tenantId: 't2', idempotencyKey: 'k' })).not.toBe(one)
    expect(deriveApiKey('x'.repeat(32), { tenantId: 't1', idempotencyKey: 'k' })).not.toBe(one)
  })
})
