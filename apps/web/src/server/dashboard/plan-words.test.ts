import { describe, expect, it } from 'vitest'
import { planInWords } from './plan-words'

describe('planInWords', () => {
  it('says what the plan lets the tenant send', () => {
    expect(planInWords({ ratePerSec: 10, burst: 20, weight: 1 })).toEqual({
      rate: 'Up to 10 emails per second',
      detail:
        'bursts of 20 emails at once; when the platform has room to spare, your campaigns get a standard share of it',
    })
    expect(planInWords({ ratePerSec: 1, burst: 1500, weight: 3 })).toEqual({
      rate: 'Up to 1 email per second',
      detail:
        'bursts of 1,500 emails at once; when the platform has room to spare, your campaigns get 3× the standard share of it',
    })
  })
})
