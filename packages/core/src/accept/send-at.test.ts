import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { MAX_SEND_AT_AHEAD_MS, scheduledUntil, sendAtField } from './send-at'

const now = new Date('2026-12-06T12:00:00.000Z')

function refusal(sendAt: string): AppError {
  try {
    scheduledUntil(sendAt, now)
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error(`${sendAt} was not refused`)
}

describe('scheduledUntil', () => {
  it('is null without a sendAt', () => {
    expect(scheduledUntil(undefined, now)).toBeNull()
  })

  it('schedules a future instant, whatever its offset', () => {
    expect(scheduledUntil('2026-12-07T09:00:00+01:00', now)?.toISOString()).toBe('2026-12-07T08:00:00.000Z')
    expect(scheduledUntil('2026-12-06T12:00:01Z', now)?.toISOString()).toBe('2026-12-06T12:00:01.000Z')
  })

  it('sends now an instant within the last minute (a client clock a little behind)', () => {
    expect(scheduledUntil('2026-12-06T11:59:30Z', now)).toBeNull()
    expect(scheduledUntil('2026-12-06T12:00:00Z', now)).toBeNull()
  })

  it('takes exactly 30 days ahead and refuses a millisecond more, naming sendAt (422)', () => {
    const limit = new Date(now.getTime() + MAX_SEND_AT_AHEAD_MS)
    expect(scheduledUntil(limit.toISOString(), now)).toEqual(limit)
    const error = refusal(new Date(limit.getTime() + 1).toISOString())
    expect(error.code).toBe('unprocessable')
    expect(error.details).toEqual([{ path: 'sendAt', message: 'must be at most 30 days ahead' }])
  })

  it('refuses more than a minute in the past', () => {
    const error = refusal('2026-12-06T11:58:59Z')
    expect(error.code).toBe('unprocessable')
    expect(error.details?.[0]?.path).toBe('sendAt')
  })
})

describe('sendAtField', () => {
  const schema = sendAtField.sendAt
  it('takes instants with Z or an offset', () => {
    expect(schema.safeParse('2026-12-07T09:00:00Z').success).toBe(true)
    expect(schema.safeParse('2026-12-07T09:00:00.123+05:30').success).toBe(true)
  })
  it('refuses local times, dates and other types', () => {
    for (const value of ['2026-12-07T09:00:00', '2026-12-07', 'tomorrow', 1765000000000]) {
      expect(schema.safeParse(value).success).toBe(false)
    }
  })
})
