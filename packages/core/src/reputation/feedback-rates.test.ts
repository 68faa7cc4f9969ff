import { describe, expect, it } from 'vitest'
import { FEEDBACK_THRESHOLDS, feedbackSeverity, rateFeedback } from './feedback-rates'

describe('feedback rates', () => {
  it('divides hard bounces and complaints by sends, and has no rate without sends', () => {
    expect(rateFeedback({ sent: 200, hardBounces: 4, complaints: 1 })).toEqual({
      sent: 200,
      hardBounces: 4,
      complaints: 1,
      bounceRate: 0.02,
      complaintRate: 0.005,
      flags: ['complaints'],
    })
    expect(rateFeedback({ sent: 0, hardBounces: 3, complaints: 0 })).toMatchObject({
      bounceRate: null,
      complaintRate: null,
      flags: [],
    })
  })

  it('flags only above the thresholds, and only with enough mail to judge', () => {
    const { minSent } = FEEDBACK_THRESHOLDS
    // Exactly 5 % and exactly 0.1 % are at, not above, the thresholds.
    expect(rateFeedback({ sent: 1000, hardBounces: 50, complaints: 1 }).flags).toEqual([])
    expect(rateFeedback({ sent: 1000, hardBounces: 51, complaints: 2 }).flags).toEqual([
      'bounces',
      'complaints',
    ])
    // One bounce of two mails is 50 %, but says little: shown, not flagged.
    const few = rateFeedback({ sent: 2, hardBounces: 1, complaints: 1 })
    expect(few.bounceRate).toBe(0.5)
    expect(few.flags).toEqual([])
    expect(rateFeedback({ sent: minSent - 1, hardBounces: 50, complaints: 0 }).flags).toEqual([])
    expect(rateFeedback({ sent: minSent, hardBounces: 50, complaints: 0 }).flags).toEqual(['bounces'])
  })

  it('measures severity against the nearer threshold', () => {
    expect(feedbackSeverity({ bounceRate: 0.1, complaintRate: 0.0005 })).toBeCloseTo(2)
    expect(feedbackSeverity({ bounceRate: 0.01, complaintRate: 0.003 })).toBeCloseTo(3)
    expect(feedbackSeverity({ bounceRate: null, complaintRate: null })).toBe(0)
  })
})
