import { describe, expect, it } from 'vitest'
import { campaignProgress } from './progress'

const none = { sent: 0, failed: 0, suppressed: 0, cancelled: 0 }

describe('campaignProgress', () => {
  it('is 0 before dispatch has created any message', () => {
    expect(campaignProgress({ status: 'scheduled', recipientCount: 0, counts: none })).toBe(0)
    expect(campaignProgress({ status: 'draft', recipientCount: 0, counts: none })).toBe(0)
    expect(campaignProgress({ status: 'cancelled', recipientCount: 0, counts: none })).toBe(0)
  })

  it('counts every terminal status over the recipients dispatched so far', () => {
    const counts = { sent: 50, failed: 5, suppressed: 3, cancelled: 2 }
    expect(campaignProgress({ status: 'sending', recipientCount: 200, counts })).toBe(0.3)
    expect(campaignProgress({ status: 'dispatching', recipientCount: 60, counts })).toBe(1)
  })

  it('is 1 once the campaign is sent, even with no or stale counts', () => {
    expect(campaignProgress({ status: 'sent', recipientCount: 0, counts: none })).toBe(1)
    expect(campaignProgress({ status: 'sent', recipientCount: 10, counts: { ...none, sent: 9 } })).toBe(1)
  })

  it('stays within 0..1 when rows outnumber the recipient count', () => {
    expect(campaignProgress({ status: 'sending', recipientCount: 2, counts: { ...none, sent: 5 } })).toBe(1)
  })

  it('reaches 1 for a cancelled campaign once the mail in flight has finished', () => {
    const counts = { sent: 40, failed: 0, suppressed: 0, cancelled: 60 }
    expect(campaignProgress({ status: 'cancelled', recipientCount: 100, counts })).toBe(1)
    expect(campaignProgress({ status: 'cancelled', recipientCount: 102, counts })).toBeCloseTo(0.98, 2)
  })
})
