import { describe, expect, it } from 'vitest'
import { planFieldOf, validatePlan } from './plan-form'

describe('validatePlan', () => {
  it('accepts whole numbers of at least 1', () => {
    expect(validatePlan({ ratePerSec: '25', burst: ' 50 ', weight: '3' })).toEqual({
      plan: { ratePerSec: 25, burst: 50, weight: 3 },
    })
  })

  it('names each bad field', () => {
    expect(validatePlan({ ratePerSec: '0', burst: '0', weight: '0' })).toEqual({
      errors: {
        ratePerSec: 'Must be more than 0',
        burst: 'Must be at least 1',
        weight: 'Must be at least 1',
      },
    })
    expect(validatePlan({ ratePerSec: '-1', burst: 'x', weight: '1.5' })).toEqual({
      errors: { ratePerSec: 'Must be more than 0', burst: 'Enter a number', weight: 'Use a whole number' },
    })
  })

  it('maps the server’s field paths', () => {
    expect(planFieldOf('plan.weight')).toBe('weight')
    expect(planFieldOf('plan.speed')).toBeNull()
  })
})
