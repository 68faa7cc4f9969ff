import { describe, expect, it } from 'vitest'
import { egressChooser, poolCache } from './start-receivers'

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
