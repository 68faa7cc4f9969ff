import { describe, expect, it } from 'vitest'
import { demandShares } from './demand-shares'

const waiting = Number.POSITIVE_INFINITY

describe('demandShares', () => {
  it('splits a provider’s rate by weight between tenants that all have mail waiting', () => {
    const shares = demandShares(300, [
      { tenantId: 'a', weight: 1, demandPerMinute: waiting },
      { tenantId: 'b', weight: 1, demandPerMinute: waiting },
    ])
    expect(shares).toEqual(
      new Map([
        ['a', 150],
        ['b', 150],
      ]),
    )
    const weighted = demandShares(400, [
      { tenantId: 'a', weight: 3, demandPerMinute: waiting },
      { tenantId: 'b', weight: 1, demandPerMinute: waiting },
    ])
    expect(weighted).toEqual(
      new Map([
        ['a', 300],
        ['b', 100],
      ]),
    )
  })

  it('gives a tenant asking for less than its part what it asks, and the rest to those waiting', () => {
    const shares = demandShares(300, [
      { tenantId: 'trickle', weight: 1, demandPerMinute: 12 },
      { tenantId: 'a', weight: 1, demandPerMinute: waiting },
      { tenantId: 'b', weight: 2, demandPerMinute: waiting },
    ])
    expect(shares.get('trickle')).toBe(12)
    expect(shares.get('a')).toBeCloseTo(96)
    expect(shares.get('b')).toBeCloseTo(192)
  })

  it('leaves a lone tenant the whole rate, and never hands out more than the rate', () => {
    expect(demandShares(300, [{ tenantId: 'a', weight: 5, demandPerMinute: waiting }])).toEqual(
      new Map([['a', 300]]),
    )
    const shares = demandShares(100, [
      { tenantId: 'a', weight: 1, demandPerMinute: 80 },
      { tenantId: 'b', weight: 1, demandPerMinute: 70 },
      { tenantId: 'c', weight: 1, demandPerMinute: waiting },
    ])
    const total = [...shares.values()].reduce((sum, share) => sum + share, 0)
    expect(total).toBeCloseTo(100)
    expect(shares.get('c')).toBeCloseTo(33.33, 1)
    expect(demandShares(0, [{ tenantId: 'a', weight: 1, demandPerMinute: waiting }]).get('a')).toBe(0)
  })
})
