import { describe, expect, it } from 'vitest'
import { describeEvent } from './event-story'

describe('describeEvent', () => {
  it('shows a sent message’s server reply', () => {
    expect(describeEvent({ type: 'sent', detail: { response: '250 2.0.0 OK id=1x2y' } })).toEqual({
      label: 'Accepted by the receiving server',
      facts: [{ name: 'server reply', value: '250 2.0.0 OK id=1x2y' }],
    })
  })

  it('gives a failure its fixed reason, code and attempts', () => {
    expect(describeEvent({ type: 'failed', detail: { code: 'recipient_unknown', attempts: 1 } })).toEqual({
      label: 'Failed',
      facts: [
        { name: 'reason', value: 'the receiving server says the recipient address does not exist' },
        { name: 'code', value: 'recipient_unknown' },
        { name: 'attempts', value: '1' },
      ],
    })
    expect(
      describeEvent({ type: 'retrying', detail: { code: 'deferred', attempt: 2 } }).facts,
    ).toContainEqual({
      name: 'attempt',
      value: '2',
    })
  })

  it('shows a bounce’s kind, status and diagnostic as text, whatever it contains', () => {
    const diagnostic = '<script>alert(1)</script> 550 5.1.1 user unknown'
    expect(
      describeEvent({
        type: 'bounced',
        detail: { kind: 'hard', status: '5.1.1', action: 'failed', diagnostic },
      }),
    ).toEqual({
      label: 'Bounced (hard)',
      facts: [
        { name: 'status', value: '5.1.1' },
        { name: 'action', value: 'failed' },
        { name: 'diagnostic', value: diagnostic },
      ],
    })
  })

  it('leaves out what it does not know instead of guessing', () => {
    expect(describeEvent({ type: 'queued', detail: null })).toEqual({
      label: 'Queued for delivery',
      facts: [],
    })
    expect(describeEvent({ type: 'failed', detail: { code: 'no-such-code', attempts: { n: 1 } } })).toEqual({
      label: 'Failed',
      facts: [{ name: 'code', value: 'no-such-code' }],
    })
    expect(describeEvent({ type: 'bounced', detail: { kind: 'weird' } }).label).toBe('Bounced')
  })

  it('says when a deferred message is tried again, and how the recipient unsubscribed', () => {
    expect(describeEvent({ type: 'deferred', detail: { untilMs: Date.UTC(2026, 11, 3, 12) } }).facts).toEqual(
      [{ name: 'until', value: '2026-12-03T12:00:00.000Z' }],
    )
    expect(describeEvent({ type: 'unsubscribed', detail: { source: 'one-click' } }).facts).toEqual([
      { name: 'how', value: 'one-click' },
    ])
  })

  it('counts the later hits of an open or a click that were folded into the event', () => {
    const detail = { url: 'https://shop.example/', repeats: 12, lastAt: '2026-12-06T04:59:00+00:00' }
    expect(describeEvent({ type: 'clicked', detail }).facts).toEqual([
      { name: 'url', value: 'https://shop.example/' },
      { name: 'hits after this one', value: '12' },
      { name: 'last hit', value: '2026-12-06T04:59:00+00:00' },
    ])
    expect(describeEvent({ type: 'opened', detail: { bot: false, first: true } }).facts).toEqual([])
  })
})
