import { describe, expect, it } from 'vitest'
import { countSoftBounce, type SoftBounceRecord } from './count-soft-bounce'

const day = 24 * 60 * 60 * 1000
const start = new Date('2026-12-01T00:00:00Z')
const at = (days: number) => new Date(start.getTime() + days * day)
const input = (messageId: string, days: number, deliveredSinceLast = false) => ({
  now: at(days),
  messageId,
  deliveredSinceLast,
  limit: 3,
  windowDays: 30,
})

function run(steps: Array<[string, number, boolean?]>): {
  record: SoftBounceRecord | null
  suppressedAt: number[]
} {
  let record: SoftBounceRecord | null = null
  const suppressedAt: number[] = []
  steps.forEach(([messageId, days, delivered], index) => {
    const count = countSoftBounce(record, input(messageId, days, delivered))
    record = count.record
    if (count.suppress) suppressedAt.push(index)
  })
  return { record, suppressedAt }
}

describe('countSoftBounce', () => {
  it('suppresses at the third soft bounce within 30 days, not before', () => {
    const { record, suppressedAt } = run([
      ['m1', 0],
      ['m2', 5],
      ['m3', 10],
    ])
    expect(suppressedAt).toEqual([2])
    expect(record).toMatchObject({
      softCount: 3,
      windowStart: at(0),
      lastSoftAt: at(10),
      lastMessageId: 'm3',
    })
  })

  it('starts again after a delivery in between', () => {
    const { record, suppressedAt } = run([
      ['m1', 0],
      ['m2', 1],
      ['m3', 2, true],
      ['m4', 3],
    ])
    expect(suppressedAt).toEqual([])
    expect(record).toMatchObject({ softCount: 2, windowStart: at(2) })
  })

  it('starts again when the window is older than 30 days', () => {
    const { record, suppressedAt } = run([
      ['m1', 0],
      ['m2', 10],
      ['m3', 31],
    ])
    expect(suppressedAt).toEqual([])
    expect(record).toMatchObject({ softCount: 1, windowStart: at(31) })
  })

  it('counts one message once (a delay warning, then its final failure)', () => {
    const first = countSoftBounce(null, input('m1', 0))
    const again = countSoftBounce(first.record, input('m1', 1))
    expect(again).toEqual({ record: first.record, counted: false, suppress: false })
  })

  it('takes an empty record (soft count 0, as the store creates it) as none', () => {
    const empty: SoftBounceRecord = {
      softCount: 0,
      windowStart: at(-100),
      lastSoftAt: at(-100),
      lastMessageId: null,
    }
    expect(countSoftBounce(empty, input('m1', 0)).record).toMatchObject({ softCount: 1, windowStart: at(0) })
  })

  it('keeps suppressing past the limit (the suppression may have been removed by hand)', () => {
    const { suppressedAt } = run([
      ['m1', 0],
      ['m2', 1],
      ['m3', 2],
      ['m4', 3],
    ])
    expect(suppressedAt).toEqual([2, 3])
  })
})
