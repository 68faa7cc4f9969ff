import { describe, expect, it } from 'vitest'
import { planWebhookClaims, type ReadyEndpoint } from './plan-claims'

const endpoint = (endpointId: string, tenantId: string, free: number): ReadyEndpoint => ({
  endpointId,
  tenantId,
  free,
})

describe('planWebhookClaims', () => {
  it('gives tenants turns, one delivery at a time, whatever their backlog', () => {
    const plan = planWebhookClaims({
      endpoints: [endpoint('a1', 'A', 100), endpoint('b1', 'B', 100), endpoint('c1', 'C', 1)],
      batchSize: 7,
    })
    expect(Object.fromEntries(plan.perTenant)).toEqual({ A: 3, B: 3, C: 1 })
  })

  it('spreads a tenant across its endpoints and keeps each within its free slots', () => {
    const plan = planWebhookClaims({
      endpoints: [endpoint('a1', 'A', 1), endpoint('a2', 'A', 4), endpoint('a3', 'A', 0)],
      batchSize: 100,
    })
    expect(Object.fromEntries(plan.perEndpoint)).toEqual({ a1: 1, a2: 4 })
  })

  it('starts after the tenant the last pass ended on', () => {
    const endpoints = [endpoint('a1', 'A', 5), endpoint('b1', 'B', 5), endpoint('c1', 'C', 5)]
    const first = planWebhookClaims({ endpoints, batchSize: 1 })
    expect(first.lastTenant).toBe('A')
    const second = planWebhookClaims({ endpoints, batchSize: 1, after: first.lastTenant })
    expect([...second.perTenant.keys()]).toEqual(['B'])
    const wrapped = planWebhookClaims({ endpoints, batchSize: 1, after: 'C' })
    expect([...wrapped.perTenant.keys()]).toEqual(['A'])
  })

  it('keeps each tenant within its token budget', () => {
    const plan = planWebhookClaims({
      endpoints: [endpoint('a1', 'A', 10), endpoint('b1', 'B', 10)],
      batchSize: 20,
      budgets: new Map([
        ['A', 2],
        ['B', 0],
      ]),
    })
    expect(Object.fromEntries(plan.perTenant)).toEqual({ A: 2 })
  })

  it("keeps each tenant within its free slots however many endpoints it has, so another tenant's go too", () => {
    const many = Array.from({ length: 20 }, (_, index) => endpoint(`a${index}`, 'A', 8))
    const plan = planWebhookClaims({
      endpoints: [...many, endpoint('b1', 'B', 8)],
      batchSize: 200,
      tenantSlots: new Map([
        ['A', 16],
        ['B', 16],
      ]),
      budgets: new Map([
        ['A', 100],
        ['B', 3],
      ]),
    })
    expect(Object.fromEntries(plan.perTenant)).toEqual({ A: 16, B: 3 })
    // A's sixteen are spread over its endpoints, not eight each on the first two.
    expect(Math.max(...[...plan.perEndpoint].filter(([id]) => id.startsWith('a')).map(([, n]) => n))).toBe(1)
    const full = planWebhookClaims({ endpoints: many, batchSize: 200, tenantSlots: new Map([['A', 0]]) })
    expect(full.perTenant.size).toBe(0)
  })
})
