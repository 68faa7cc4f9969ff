import { describe, expect, it } from 'vitest'
import { pollIntervalMs, progressPercent, summaryWithoutMessages } from './live-progress'

const counts = {
  pending: 0,
  queued: 0,
  sent: 10,
  failed: 0,
  suppressed: 0,
  cancelled: 5,
  bounced: 0,
  complained: 0,
}

describe('pollIntervalMs', () => {
  it('polls every second while mail goes out, every two while waiting', () => {
    expect(pollIntervalMs({ status: 'dispatching', counts })).toBe(1000)
    expect(pollIntervalMs({ status: 'sending', counts })).toBe(1000)
    expect(pollIntervalMs({ status: 'scheduled', counts })).toBe(2000)
    expect(pollIntervalMs({ status: 'draft', counts })).toBe(2000)
  })

  it('stops when the campaign is sent, or cancelled with nothing left in flight', () => {
    expect(pollIntervalMs({ status: 'sent', counts })).toBeNull()
    expect(pollIntervalMs({ status: 'cancelled', counts })).toBeNull()
  })

  it('keeps polling a cancelled campaign until its in-flight sends finish', () => {
    expect(pollIntervalMs({ status: 'cancelled', counts: { ...counts, queued: 2 } })).toBe(1000)
  })
})

describe('progressPercent', () => {
  it('rounds down, so only a finished campaign shows 100', () => {
    expect(progressPercent(0)).toBe(0)
    expect(progressPercent(0.999)).toBe(99)
    expect(progressPercent(1)).toBe(100)
  })

  it('does not lose a percent to binary fractions', () => {
    expect(progressPercent(0.29)).toBe(29)
    expect(progressPercent(0.57)).toBe(57)
  })
})

describe('summaryWithoutMessages', () => {
  it('says a sent campaign without messages ended with no recipients', () => {
    expect(summaryWithoutMessages('sent')).toMatch(/^Ended: no recipients\./)
    expect(summaryWithoutMessages('cancelled')).toMatch(/^Cancelled before dispatch/)
    expect(summaryWithoutMessages('scheduled')).toMatch(/^No messages yet/)
  })
})
