import { describe, expect, it } from 'vitest'
import { describeEvent, nextTryText } from './event-story'

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

  it('names the receiving provider that deferred a message, its words, and how soon the next try is', () => {
    const now = new Date(Date.UTC(2026, 11, 3, 12))
    const detail = {
      untilMs: now.getTime() + 180_000,
      provider: 'google',
      reply: '421 4.7.28 Gmail has detected an unusual rate of unsolicited mail',
    }
    expect(describeEvent({ type: 'deferred', detail }, now)).toEqual({
      label:
        'Deferred by google: 421 4.7.28 Gmail has detected an unusual rate of unsolicited mail, next try in 3 min',
      facts: [{ name: 'until', value: '2026-12-03T12:03:00.000Z' }],
    })
    // Past its time, or without the page's clock, the line does not promise a next try.
    expect(describeEvent({ type: 'deferred', detail }, new Date(now.getTime() + 200_000)).label).toBe(
      'Deferred by google: 421 4.7.28 Gmail has detected an unusual rate of unsolicited mail',
    )
    expect(describeEvent({ type: 'deferred', detail: { untilMs: 1 } }, now).label).toBe(
      'Deferred: waiting for the plan’s sending rate',
    )
    expect([nextTryText(now.getTime() + 40_000, now), nextTryText(now.getTime() + 7_200_000, now)]).toEqual([
      'in 40 s',
      'in 2 h',
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
