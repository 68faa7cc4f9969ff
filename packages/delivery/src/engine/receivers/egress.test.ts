import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import { DEFAULT_BACKOFF_OPTIONS } from '@fairlane/delivery/shaping/aimd'
import { aimdRateController } from '@fairlane/delivery/shaping/rate-controller'
import { describe, expect, it } from 'vitest'
import { egressChooser, poolCache, providerRates, tenantShares } from './start-receivers'

describe('egress addresses', () => {
  const pools = { acme: ['192.0.2.20', '192.0.2.21'] }
  const pinned = new Map([
    ['t-acme', 'acme'],
    ['t-gone', 'retired-pool'],
  ])
  const choose = egressChooser({
    shared: ['192.0.2.10', '192.0.2.11', '192.0.2.12'],
    pools,
    poolOf: async (tenantId) => pinned.get(tenantId),
  })

  it('gives a tenant the same address for a provider every time, spread over the shared pool', async () => {
    const first = await choose({ tenantId: 't1', provider: 'google' })
    expect(await choose({ tenantId: 't1', provider: 'google' })).toBe(first)
    const used = new Set<string>()
    for (let tenant = 0; tenant < 60; tenant++)
      used.add(await choose({ tenantId: `t${tenant}`, provider: 'google' }))
    expect([...used].sort()).toEqual(['192.0.2.10', '192.0.2.11', '192.0.2.12'])
  })

  it('sends a pinned tenant from its dedicated pool only; a pin to a pool no longer configured, from the shared one', async () => {
    for (const provider of ['google', 'microsoft', 'yahoo', 'example.org']) {
      expect(pools.acme).toContain(await choose({ tenantId: 't-acme', provider }))
      expect(['192.0.2.10', '192.0.2.11', '192.0.2.12']).toContain(
        await choose({ tenantId: 't-gone', provider }),
      )
    }
  })

  it('lets the system pick when no address is configured, without asking for pins', async () => {
    const none = egressChooser({
      shared: [],
      pools: {},
      poolOf: async () => {
        throw new Error('no pools: never asked')
      },
    })
    expect(await none({ tenantId: 't1', provider: 'google' })).toBe('')
  })

  it('reads a tenant’s pin again after its time to live', async () => {
    let nowMs = 0
    let reads = 0
    let pool = 'acme'
    const poolOf = poolCache(
      async (ids) => {
        reads++
        return new Map(ids.map((id) => [id, pool]))
      },
      { ttlMs: 5_000, now: () => nowMs },
    )
    expect(await poolOf('t1')).toBe('acme')
    pool = 'other'
    nowMs = 4_999
    expect(await poolOf('t1')).toBe('acme')
    nowMs = 5_000
    expect(await poolOf('t1')).toBe('other')
    expect(reads).toBe(2)
  })
})

describe('a provider’s rate for the pacer', () => {
  it('sums the shared addresses’ allowed rates (a paused one adds nothing), less the critical reserve, read once a second', async () => {
    const rules = loadReceiverRules()
    const controller = aimdRateController({ ...DEFAULT_BACKOFF_OPTIONS, ...rules.backoff })
    const nowMs = Date.UTC(2026, 11, 6, 12)
    const paused = controller.onThrottle(
      controller.initial({ connections: 5, messagesPerConnection: 50, perMinute: 600 }, nowMs),
      { connections: 5, messagesPerConnection: 50, perMinute: 600 },
      nowMs,
    )
    let reads = 0
    const {
      ratePerMinute: rate,
      tenantRatePerMinute,
      ratePerMinuteAt,
      forget,
    } = providerRates({
      list: async () => {
        reads++
        return [
          { egress: '192.0.2.10', provider: 'google', scope: '', state: paused },
          { egress: '192.0.2.11', provider: 'google', scope: 't-slowed', state: paused },
        ]
      },
      rules,
      controller,
      egressAddresses: ['192.0.2.10', '192.0.2.11'],
      now: () => nowMs,
    })
    const google = rules.providers.find((rule) => rule.name === 'google')?.limits.perMinute ?? 0
    expect(await rate('google')).toBeCloseTo(google * (1 - rules.criticalReserve))
    // A domain-named provider: the default limits at both addresses.
    expect(await rate('example.org')).toBeCloseTo(
      2 * rules.default.limits.perMinute * (1 - rules.criticalReserve),
    )
    // A tenant google slowed alone: paused at .11 (its own state) and at .10 (everyone's): nothing.
    expect(await tenantRatePerMinute('t-slowed', 'google')).toBe(0)
    expect(await tenantRatePerMinute('t-other', 'google')).toBeUndefined()
    // One address's own: paused at .10, the ceiling at .11.
    expect(await ratePerMinuteAt('google', '192.0.2.10')).toBe(0)
    expect(await ratePerMinuteAt('google', '192.0.2.11')).toBeCloseTo(google * (1 - rules.criticalReserve))
    expect(reads).toBe(1)
    // The gate wrote a new state (providerStateChanged): the next question reads afresh.
    forget()
    await rate('google')
    expect(reads).toBe(2)
  })
})

describe('the pacer’s shares of a provider', () => {
  it('notes its backlogged tenants as waiting at their addresses and caps each at its share there', async () => {
    const notes: { egress: string; provider: string; tenants: string[] }[] = []
    // An API sender (b) asked 60 a minute at 192.0.2.10 lately; nobody else is at 192.0.2.11.
    const shares = tenantShares({
      demand: {
        async note({ egress, provider, notes: noted }) {
          notes.push({ egress, provider, tenants: noted.map((note) => `${note.tenantId}:${note.kind}`) })
          const waiting = noted.map((note) => ({
            tenantId: note.tenantId,
            weight: note.weight,
            demandPerMinute: Number.POSITIVE_INFINITY,
          }))
          return egress === '192.0.2.10'
            ? [...waiting, { tenantId: 'b', weight: 1, demandPerMinute: 60 }]
            : waiting
        },
      },
      egressFor: async ({ tenantId }) => (tenantId === 'lone' ? '192.0.2.11' : '192.0.2.10'),
      rateAt: async () => 270,
    })
    const answer = await shares('google', [
      { tenantId: 'a', weight: 1 },
      { tenantId: 'heavy', weight: 2 },
      { tenantId: 'lone', weight: 1 },
    ])
    // 270 less b's 60, split one to two; alone at its address, no cap.
    expect(answer).toEqual(
      new Map([
        ['a', 70],
        ['heavy', 140],
      ]),
    )
    expect(notes).toEqual([
      { egress: '192.0.2.10', provider: 'google', tenants: ['a:waiting', 'heavy:waiting'] },
      { egress: '192.0.2.11', provider: 'google', tenants: ['lone:waiting'] },
    ])
  })
})
