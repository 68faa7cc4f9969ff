import { describe, expect, it } from 'vitest'
import { recordTrackingHit, repeatWindowStart, type TrackingHit, type TrackingStore } from './record-hit'
import { signTrackingToken, trackingKey } from './token'

const key = trackingKey([{ kid: 1, secret: 'an-unsubscribe-secret-of-32-characters!' }])
const messageId = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f'
const now = new Date('2026-12-04T12:00:00Z')

function fakeStore(links: Record<number, string>) {
  const hits: (TrackingHit & { linkId?: number })[] = []
  const store: TrackingStore = {
    async recordOpen(hit) {
      if (hit.messageId !== messageId) return false
      hits.push(hit)
      return true
    },
    async recordClick(hit) {
      const url = hit.messageId === messageId ? links[hit.linkId] : undefined
      if (url === undefined) return null
      hits.push(hit)
      return url
    },
  }
  return { store, hits }
}

const deps = (store: TrackingStore) => ({
  key,
  store,
  clock: { now: () => now },
  isBotUserAgent: (userAgent: string) => userAgent.includes('bot'),
  scannerWindowMs: 5_000,
  repeatWindowMs: 3_600_000,
})

describe('recordTrackingHit', () => {
  it('records an open and redirects a click to the stored URL of the link the token names', async () => {
    const { store, hits } = fakeStore({ 7: 'https://shop.example/sale' })
    const open = signTrackingToken({ kind: 'open', messageId }, key)
    const click = signTrackingToken({ kind: 'click', messageId, linkId: 7 }, key)
    const ua = 'Mozilla/5.0 (Windows NT 10.0) Thunderbird/128.0'
    expect(await recordTrackingHit({ kind: 'open', token: open, userAgent: ua }, deps(store))).toEqual({
      kind: 'opened',
    })
    expect(await recordTrackingHit({ kind: 'click', token: click, userAgent: ua }, deps(store))).toEqual({
      kind: 'redirect',
      url: 'https://shop.example/sale',
    })
    expect(hits).toHaveLength(2)
    expect(hits[1]).toMatchObject({ linkId: 7, botUserAgent: false, userAgent: ua })
    expect(hits[1]?.scannerSentAfter).toEqual(new Date('2026-12-04T11:59:55Z'))
  })

  it('flags bot user agents, requests without one, and HEAD requests', async () => {
    const { store, hits } = fakeStore({})
    const open = signTrackingToken({ kind: 'open', messageId }, key)
    await recordTrackingHit({ kind: 'open', token: open, userAgent: 'Googlebot/2.1' }, deps(store))
    await recordTrackingHit({ kind: 'open', token: open, userAgent: null }, deps(store))
    // A HEAD request is a link checker's, whatever its user agent says.
    await recordTrackingHit(
      { kind: 'open', token: open, userAgent: 'Mozilla/5.0', automated: true },
      deps(store),
    )
    await recordTrackingHit({ kind: 'open', token: open, userAgent: 'Mozilla/5.0' }, deps(store))
    expect(hits.map((hit) => hit.botUserAgent)).toEqual([true, true, true, false])
  })

  it('answers not-found and writes nothing for forged, cross-kind and unknown-link tokens', async () => {
    const { store, hits } = fakeStore({ 7: 'https://shop.example/sale' })
    const open = signTrackingToken({ kind: 'open', messageId }, key)
    const click = signTrackingToken({ kind: 'click', messageId, linkId: 7 }, key)
    const unknownLink = signTrackingToken({ kind: 'click', messageId, linkId: 8 }, key)
    const forged = `${click.slice(0, 20)}${click[20] === 'A' ? 'B' : 'A'}${click.slice(21)}`
    for (const [kind, token] of [
      ['click', forged],
      ['click', open],
      ['open', click],
      ['click', unknownLink],
      ['open', 'not-a-token'],
    ] as const) {
      expect(await recordTrackingHit({ kind, token, userAgent: 'x' }, deps(store))).toEqual({
        kind: 'not-found',
      })
    }
    expect(hits).toEqual([])
  })

  it('names the clock-aligned window a hit falls in, so hits of one window share one event', async () => {
    const { store, hits } = fakeStore({})
    const open = signTrackingToken({ kind: 'open', messageId }, key)
    await recordTrackingHit({ kind: 'open', token: open, userAgent: 'Mozilla/5.0' }, deps(store))
    expect(hits[0]?.repeatWindowStart).toEqual(new Date('2026-12-04T12:00:00Z'))
    const hour = 3_600_000
    expect(repeatWindowStart(new Date('2026-12-04T12:59:59.999Z'), hour)).toEqual(
      new Date('2026-12-04T12:00:00Z'),
    )
    expect(repeatWindowStart(new Date('2026-12-04T13:00:00Z'), hour)).toEqual(
      new Date('2026-12-04T13:00:00Z'),
    )
    expect(repeatWindowStart(new Date('2026-12-04T13:00:07Z'), 5_000)).toEqual(
      new Date('2026-12-04T13:00:05Z'),
    )
  })
})
