import { describe, expect, it } from 'vitest'
import { planFieldOf, planPatch, validatePlan } from './plan-form'

const text = (values: Partial<Record<string, string>>) => ({
  ratePerSec: '10',
  burst: '20',
  weight: '1',
  txRatePerSec: '',
  txBurst: '',
  quotaDaily: '',
  quotaMonthly: '',
  ...values,
})

const standard = {
  ratePerSec: 10,
  burst: 20,
  weight: 1,
  txRatePerSec: null,
  txBurst: null,
  quotaDaily: null,
  quotaMonthly: null,
}

describe('validatePlan', () => {
  it('accepts whole numbers of at least 1, empty optional fields as none', () => {
    expect(validatePlan(text({ ratePerSec: '25', burst: ' 50 ', weight: '3', quotaDaily: '0' }))).toEqual({
      plan: { ...standard, ratePerSec: 25, burst: 50, weight: 3, quotaDaily: 0 },
    })
  })

  it('names each bad field', () => {
    expect(validatePlan(text({ ratePerSec: '0', burst: '0', weight: '0' }))).toEqual({
      errors: {
        ratePerSec: 'Must be more than 0',
        burst: 'Must be at least 1',
        weight: 'Must be at least 1',
      },
    })
    expect(validatePlan(text({ ratePerSec: '-1', burst: 'x', weight: '1.5', quotaMonthly: '-2' }))).toEqual({
      errors: {
        ratePerSec: 'Must be more than 0',
        burst: 'Enter a number',
        weight: 'Use a whole number',
        quotaMonthly: 'Must be at least 0',
      },
    })
  })

  it('wants the transactional rate and burst together', () => {
    expect(validatePlan(text({ txRatePerSec: '5' }))).toEqual({
      errors: { txBurst: 'Give the transactional rate and burst together, or neither' },
    })
  })

  it('maps the server’s field paths', () => {
    expect(planFieldOf('plan.weight')).toBe('weight')
    expect(planFieldOf('plan.quota.daily')).toBe('quotaDaily')
    expect(planFieldOf('plan.transactional.burst')).toBe('txBurst')
    expect(planFieldOf('planName')).toBe('planName')
    expect(planFieldOf('plan.speed')).toBeNull()
  })
})

describe('planPatch', () => {
  it('sends exactly what differs from the named plan, resetting the old overrides', () => {
    expect(planPatch('standard', { ...standard, ratePerSec: 25, quotaDaily: 100 }, standard)).toEqual({
      planName: 'standard',
      resetOverrides: true,
      plan: { ratePerSec: 25, quota: { daily: 100 } },
    })
    expect(planPatch('standard', standard, standard)).toEqual({ planName: 'standard', resetOverrides: true })
  })

  it('sends the transactional plan whole, or null for the platform’s', () => {
    const free = { ...standard, txRatePerSec: 5, txBurst: 10 }
    expect(planPatch('free', { ...free, txBurst: 20 }, free).plan).toEqual({
      transactional: { ratePerSec: 5, burst: 20 },
    })
    expect(planPatch('free', { ...free, txRatePerSec: null, txBurst: null }, free).plan).toEqual({
      transactional: null,
    })
  })
})
