import { describe, expect, it } from 'vitest'
import { listReceivers } from './list-receivers'
import type { ListReceiversDeps, ReceiverRateNow, ReceiverWindowCounts, StoredReceiverState } from './ports'

const NOW = new Date('2026-12-06T12:00:00.000Z')

/** A stand-in controller state: the rate now is stored as is, so the test reads plainly. */
type FakeState = ReceiverRateNow

function depsWith(input: {
  states?: StoredReceiverState[]
  recent?: ReceiverWindowCounts[]
  hour?: ReceiverWindowCounts[]
}): ListReceiversDeps {
  return {
    states: { list: async () => input.states ?? [] },
    counters: {
      read: async ({ windowMinutes }) => (windowMinutes === 5 ? (input.recent ?? []) : (input.hour ?? [])),
    },
    rates: {
      ceilingOf: (provider) => (provider === 'google' ? 600 : 300),
      rateOf: ({ state }) => state as FakeState,
    },
    clock: { now: () => NOW },
  }
}

const counts = (provider: string, egress: string, extra: Partial<ReceiverWindowCounts> = {}) => ({
  provider,
  egress,
  attempts: 0,
  accepted: 0,
  throttled: 0,
  deferred: 0,
  tenants: [],
  ...extra,
})

describe('listReceivers', () => {
  it('shows a throttled provider paused, with its cut rate, last reply and slowed tenants', async () => {
    const paused: FakeState = {
      ratePerMinute: 0,
      ceilingPerMinute: 600,
      lastThrottledPerMinute: 600,
      pausedUntilMs: NOW.getTime() + 15_000,
    }
    const receivers = await listReceivers(
      depsWith({
        states: [
          {
            provider: 'google',
            egress: '127.0.0.1',
            scope: '',
            state: paused,
            lastReply: '421 4.7.28 unusual rate',
            throttledAt: new Date(NOW.getTime() - 1_000),
          },
          {
            provider: 'google',
            egress: '127.0.0.1',
            scope: 'tenant-a',
            state: { ...paused, ratePerMinute: 149.96, pausedUntilMs: NOW.getTime() - 1 },
            lastReply: '421 4.7.28 dkim',
            throttledAt: NOW,
          },
        ],
        recent: [
          counts('google', '127.0.0.1', {
            attempts: 4,
            throttled: 1,
            deferred: 7,
            tenants: [
              { tenantId: 'tenant-a', attempts: 3 },
              { tenantId: 'tenant-b', attempts: 1 },
            ],
          }),
        ],
        hour: [counts('google', '127.0.0.1', { attempts: 40, accepted: 30, throttled: 2, deferred: 9 })],
      }),
    )
    expect(receivers).toEqual([
      {
        provider: 'google',
        egress: '127.0.0.1',
        ratePerMinute: 0,
        ceilingPerMinute: 600,
        pausedUntil: '2026-12-06T12:00:15.000Z',
        attempts5m: 4,
        throttled5m: 1,
        deferred5m: 7,
        tenants: [
          { id: 'tenant-a', share: 0.75 },
          { id: 'tenant-b', share: 0.25 },
        ],
        lastThrottledPerMinute: 600,
        lastReply: '421 4.7.28 unusual rate',
        lastThrottledAt: '2026-12-06T11:59:59.000Z',
        attempts60m: 40,
        accepted60m: 30,
        throttled60m: 2,
        deferred60m: 9,
        // Its pause is over: no pausedUntil.
        slowedTenants: [{ id: 'tenant-a', ratePerMinute: 150 }],
      },
    ])
  })

  it('shows a provider known only from counts at its ceiling, and one known only from a state', async () => {
    const receivers = await listReceivers(
      depsWith({
        states: [
          {
            provider: 'yahoo',
            egress: '',
            scope: 'tenant-z',
            state: { ratePerMinute: 10, ceilingPerMinute: 300, lastThrottledPerMinute: 20, pausedUntilMs: 0 },
            lastReply: null,
            throttledAt: null,
          },
        ],
        hour: [counts('example.org', '', { attempts: 2 })],
      }),
    )
    expect(
      receivers.map((receiver) => [receiver.provider, receiver.ratePerMinute, receiver.pausedUntil]),
    ).toEqual([
      ['example.org', 300, undefined],
      ['yahoo', 300, undefined],
    ])
    expect(receivers[0]).toMatchObject({ attempts5m: 0, attempts60m: 2, tenants: [], slowedTenants: [] })
    expect(receivers[1]?.slowedTenants).toEqual([{ id: 'tenant-z', ratePerMinute: 10 }])
    expect(receivers[1]).not.toHaveProperty('lastReply')
  })

  it('names the tenants it knows, and leaves a gone tenant by its id', async () => {
    const deps = depsWith({
      states: [
        {
          provider: 'google',
          egress: '',
          scope: 'tenant-a',
          state: { ratePerMinute: 10, ceilingPerMinute: 600, lastThrottledPerMinute: 20, pausedUntilMs: 0 },
          lastReply: null,
          throttledAt: null,
        },
      ],
      recent: [
        counts('google', '', {
          attempts: 2,
          tenants: [
            { tenantId: 'tenant-a', attempts: 1 },
            { tenantId: 'tenant-gone', attempts: 1 },
          ],
        }),
      ],
    })
    const asked: string[][] = []
    deps.tenantNames = async (ids) => {
      asked.push(ids)
      return new Map([['tenant-a', 'Acme']])
    }
    const [google] = await listReceivers(deps)
    expect(asked).toEqual([['tenant-a', 'tenant-gone']])
    expect(google?.tenants).toEqual([
      { id: 'tenant-a', share: 0.5, name: 'Acme' },
      { id: 'tenant-gone', share: 0.5 },
    ])
    expect(google?.slowedTenants).toEqual([{ id: 'tenant-a', name: 'Acme', ratePerMinute: 10 }])
  })

  it('lets a corrupt state be an error, not a made-up rate', async () => {
    const deps = depsWith({
      states: [{ provider: 'google', egress: '', scope: '', state: {}, lastReply: null, throttledAt: null }],
    })
    deps.rates.rateOf = () => {
      throw new TypeError('invalid rate state at ratePerMinute: expected number')
    }
    await expect(listReceivers(deps)).rejects.toThrow(/invalid rate state at ratePerMinute/)
  })
})
