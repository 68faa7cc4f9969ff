import { describe, expect, it } from 'vitest'
import {
  assessReputation,
  DEFAULT_GUARDRAIL_THRESHOLDS,
  describeFinding,
  nextReputationStage,
  weightAtStage,
} from './guardrails'

const quiet = { sent: 0, hardBounces: 0, complaints: 0 }

describe('assessReputation', () => {
  it('is ok under every threshold, and below the minimum volume whatever the rates', () => {
    expect(assessReputation({ day: { sent: 1_000, hardBounces: 19, complaints: 0 }, week: quiet })).toEqual({
      stage: 'ok',
      finding: null,
    })
    // 50 % bounces, but 100 sends: too few to act on.
    expect(assessReputation({ day: { sent: 100, hardBounces: 50, complaints: 5 }, week: quiet }).stage).toBe(
      'ok',
    )
  })

  it('reaches warn, slow and pause at the default thresholds (hard bounces 2, 4, 6 %; complaints 0.08, 0.15, 0.3 %)', () => {
    const day = (hardBounces: number, complaints = 0) => ({
      day: { sent: 10_000, hardBounces, complaints },
      week: quiet,
    })
    expect(assessReputation(day(200)).stage).toBe('warn')
    expect(assessReputation(day(399)).stage).toBe('warn')
    expect(assessReputation(day(400)).stage).toBe('slow')
    expect(assessReputation(day(600)).stage).toBe('pause')
    expect(assessReputation(day(0, 8)).stage).toBe('warn')
    expect(assessReputation(day(0, 15)).stage).toBe('slow')
    expect(assessReputation(day(0, 30)).stage).toBe('pause')
  })

  it('takes the worst window, and explains the stage by it', () => {
    const assessed = assessReputation({
      day: { sent: 1_000, hardBounces: 25, complaints: 0 },
      week: { sent: 20_000, hardBounces: 100, complaints: 40 },
    })
    expect(assessed.stage).toBe('slow')
    expect(assessed.finding).toMatchObject({ window: 'week', signal: 'complaints', threshold: 0.0015 })
    expect(describeFinding(assessed.finding as NonNullable<typeof assessed.finding>)).toBe(
      '0.2 % complaints over 7 days (20,000 sent; slow at 0.15 %)',
    )
  })

  it('uses the thresholds it is given (data, not constants)', () => {
    const strict = {
      ...DEFAULT_GUARDRAIL_THRESHOLDS,
      pause: { hardBounceRate: 0.01, complaintRate: 0.001, minSent: 10 },
    }
    expect(
      assessReputation({ day: { sent: 20, hardBounces: 1, complaints: 0 }, week: quiet }, strict).stage,
    ).toBe('pause')
  })
})

describe('nextReputationStage', () => {
  it('follows the rates both ways below a pause, and holds a pause for the admin', () => {
    expect(nextReputationStage('ok', 'slow')).toBe('slow')
    expect(nextReputationStage('slow', 'warn')).toBe('warn')
    expect(nextReputationStage('warn', 'ok')).toBe('ok')
    expect(nextReputationStage('slow', 'pause')).toBe('pause')
    expect(nextReputationStage('pause', 'ok')).toBe('pause')
  })
})

describe('weightAtStage', () => {
  it('cuts the weight at slow only', () => {
    expect(weightAtStage(4, 'slow')).toBe(1)
    expect(weightAtStage(4, 'warn')).toBe(4)
    expect(weightAtStage(4, 'pause')).toBe(4)
  })
})
