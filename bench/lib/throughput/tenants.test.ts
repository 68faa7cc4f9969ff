import { tenantShard } from '@fairlane/queue'
import { describe, expect, it } from 'vitest'
import { spreadTenantIds } from './tenants'

describe('spreadTenantIds', () => {
  it('puts six tenants two on each of three shards, the same ids every time', () => {
    const ids = spreadTenantIds(6, 3)
    expect(new Set(ids).size).toBe(6)
    const perShard = [0, 1, 2].map((shard) => ids.filter((id) => tenantShard(id, 3) === shard).length)
    expect(perShard).toEqual([2, 2, 2])
    expect(spreadTenantIds(6, 3)).toEqual(ids)
  })

  it('gives valid distinct ids with one shard', () => {
    const ids = spreadTenantIds(4, 1)
    expect(new Set(ids).size).toBe(4)
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
