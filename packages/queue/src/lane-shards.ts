import type { Lane } from '@fairlane/core'
import { queuePrefix } from './names'

/** Redis Cluster's slot count: a key's slot is CRC16(hash tag) mod 16384. */
export const CLUSTER_SLOTS = 16_384

/** The most shards a lane may have (LANE_SHARDS' upper bound). */
export const MAX_LANE_SHARDS = 64

/**
 * How far (in slots) a shard's hash tag may land from its ideal slot. Small against a master's range
 * (16384 / masters), so a shard never drifts onto the neighbouring master unless shard 0 itself sits
 * within this many slots of a range's edge.
 */
const SLOT_TOLERANCE = 16

/** CRC16/XMODEM, the checksum Redis Cluster hashes keys with (`CLUSTER KEYSLOT`). */
export function clusterSlotOf(tag: string): number {
  let crc = 0
  for (const byte of Buffer.from(tag, 'utf8')) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc % CLUSTER_SLOTS
}

/**
 * The shard of a lane that a tenant's jobs go to: FNV-1a (32 bit) of its id, mod `shards`. Pure and
 * stable across processes and restarts, so every relay, pacer, sweeper and admin console agrees, and a
 * tenant's jobs keep their order in one queue. Changing LANE_SHARDS moves tenants: see the README.
 */
export function tenantShard(tenantId: string, shards: number): number {
  assertShards(shards)
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(tenantId, 'utf8')) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash % shards
}

const namesCache = new Map<string, readonly string[]>()

/**
 * The BullMQ queue names of a lane's shards. Shard 0 is the lane's own name, so one shard is exactly
 * the unsharded layout. Shard i (i ≥ 1) is `<lane>-<i>-<salt>`, the smallest salt whose hash tag lands
 * within a few slots of shard 0's slot + i/shards of the slot space: the shards sit evenly around the
 * slot ring, so on a cluster of `shards` masters with equal slot ranges (`redis-cli --cluster create`)
 * each master holds one shard of each lane. The names depend on `shards`.
 */
export function laneShardNames(lane: Lane, shards: number): readonly string[] {
  assertShards(shards)
  const key = `${lane}/${shards}`
  const cached = namesCache.get(key)
  if (cached) return cached
  const origin = clusterSlotOf(lane)
  const names = [lane as string]
  for (let index = 1; index < shards; index++) {
    const ideal = (origin + Math.round((index * CLUSTER_SLOTS) / shards)) % CLUSTER_SLOTS
    names.push(nameNearSlot(`${lane}-${index}`, ideal))
  }
  namesCache.set(key, names)
  return names
}

/** A lane shard's queue name and its BullMQ prefix (a hash tag of its own: see `queuePrefix`). */
export interface LaneShard {
  lane: Lane
  index: number
  name: string
  prefix: string
}

/** Every shard of a lane, shard 0 first, as Queues and Workers are constructed from them. */
export function laneShards(basePrefix: string, lane: Lane, shards: number): LaneShard[] {
  return laneShardNames(lane, shards).map((name, index) => ({
    lane,
    index,
    name,
    prefix: queuePrefix(basePrefix, name),
  }))
}

function nameNearSlot(stem: string, ideal: number): string {
  for (let salt = 0; ; salt++) {
    const name = `${stem}-${salt}`
    const distance = Math.abs(clusterSlotOf(name) - ideal)
    if (Math.min(distance, CLUSTER_SLOTS - distance) <= SLOT_TOLERANCE) return name
  }
}

function assertShards(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_LANE_SHARDS)
    throw new RangeError(`LANE_SHARDS must be a whole number from 1 to ${MAX_LANE_SHARDS} (got ${shards})`)
}
