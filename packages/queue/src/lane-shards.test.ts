import { randomUUID } from 'node:crypto'
import { LANES } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { CLUSTER_SLOTS, clusterSlotOf, laneShardNames, laneShards, tenantShard } from './lane-shards'

describe('clusterSlotOf', () => {
  it("agrees with Redis Cluster's CLUSTER KEYSLOT", () => {
    // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
    expect(clusterSlotOf('123456789')).toBe(0x31c3 % CLUSTER_SLOTS)
    expect(clusterSlotOf('foo')).toBe(12182)
    expect(clusterSlotOf('somekey')).toBe(11058)
    expect(clusterSlotOf('')).toBe(0)
  })
})

describe('tenantShard', () => {
  it('is FNV-1a of the id, mod the shard count', () => {
    // FNV-1a 32-bit test vectors: "" → 0x811c9dc5, "a" → 0xe40c292c, "foobar" → 0xbf9cf968.
    expect(tenantShard('', 64)).toBe(0x811c9dc5 % 64)
    expect(tenantShard('a', 7)).toBe(0xe40c292c % 7)
    expect(tenantShard('foobar', 5)).toBe(0xbf9cf968 % 5)
  })

  it('puts every tenant on shard 0 when there is one shard', () => {
    for (let i = 0; i < 50; i++) expect(tenantShard(randomUUID(), 1)).toBe(0)
  })

  it('is stable and spreads many tenants over every shard', () => {
    const tenants = Array.from({ length: 3_000 }, () => randomUUID())
    const counts = [0, 0, 0]
    for (const tenantId of tenants) {
      const shard = tenantShard(tenantId, 3)
      expect(tenantShard(tenantId, 3)).toBe(shard)
      counts[shard] = (counts[shard] ?? 0) + 1
    }
    for (const count of counts) expect(count).toBeGreaterThan(850)
  })

  it('refuses a shard count out of range, naming LANE_SHARDS', () => {
    expect(() => tenantShard('t', 0)).toThrow(/LANE_SHARDS must be a whole number from 1 to 64 \(got 0\)/)
    expect(() => tenantShard('t', 1.5)).toThrow(/LANE_SHARDS/)
    expect(() => tenantShard('t', 65)).toThrow(/LANE_SHARDS/)
  })
})

describe('laneShardNames', () => {
  it("keeps the lane's own name alone with one shard: the unsharded layout", () => {
    for (const lane of LANES) expect(laneShardNames(lane, 1)).toEqual([lane])
  })

  it('names shards distinctly, shard 0 being the lane, and the same on every call', () => {
    const names = LANES.flatMap((lane) => laneShardNames(lane, 5))
    expect(new Set(names).size).toBe(15)
    for (const lane of LANES) {
      const shards = laneShardNames(lane, 5)
      expect(shards[0]).toBe(lane)
      for (const name of shards.slice(1)) expect(name).toMatch(new RegExp(`^${lane}-\\d-\\d+$`))
      expect(laneShardNames(lane, 5)).toEqual(shards)
    }
  })

  it("spreads each lane's shards evenly around the slot ring", () => {
    for (const shards of [2, 3, 4, 8]) {
      for (const lane of LANES) {
        const slots = laneShardNames(lane, shards).map(clusterSlotOf)
        const origin = slots[0] ?? 0
        slots.forEach((slot, index) => {
          const ideal = (origin + Math.round((index * CLUSTER_SLOTS) / shards)) % CLUSTER_SLOTS
          const distance = Math.abs(slot - ideal)
          expect(Math.min(distance, CLUSTER_SLOTS - distance)).toBeLessThanOrEqual(16)
        })
      }
    }
  })

  it('puts the three shards of each lane on three different masters of an evenly split 3-master cluster', () => {
    // `redis-cli --cluster create` with three masters: 0–5460, 5461–10922, 10923–16383.
    const masterOf = (slot: number) => (slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2)
    for (const lane of LANES) {
      const masters = laneShardNames(lane, 3).map((name) => masterOf(clusterSlotOf(name)))
      expect(new Set(masters).size).toBe(3)
    }
  })

  it("gives each shard its own hash-tagged prefix (the queue's name in braces)", () => {
    expect(laneShards('fl', 'bulk', 2)).toEqual([
      { lane: 'bulk', index: 0, name: 'bulk', prefix: 'fl:{bulk}' },
      {
        lane: 'bulk',
        index: 1,
        name: laneShardNames('bulk', 2)[1],
        prefix: `fl:{${laneShardNames('bulk', 2)[1]}}`,
      },
    ])
  })
})
