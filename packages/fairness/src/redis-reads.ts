import type { Cluster, Redis } from 'ioredis'

/** A single Redis or a Redis Cluster (`REDIS_CLUSTER=true`). */
export type RedisClient = Redis | Cluster

/**
 * The values of several groups of keys, each group within one hash slot (one tenant's or one bucket's
 * keys, sharing its `{…}` tag). On one Redis: one MGET for all of them. On a cluster a cross-slot
 * MGET is refused, so one MGET per group, all issued in the same turn: the cluster client's
 * auto-pipelining sends them as one pipeline per node.
 */
export async function readGroupedKeys(redis: RedisClient, groups: string[][]): Promise<(string | null)[][]> {
  if (!redis.isCluster) {
    const flat = groups.flat()
    if (flat.length === 0) return groups.map(() => [])
    return splitBySizes(await redis.mget(flat), groups)
  }
  return Promise.all(groups.map((keys) => (keys.length === 0 ? [] : redis.mget(keys))))
}

/** `values` cut into consecutive runs as long as each group. */
export function splitBySizes<T>(values: T[], groups: readonly (readonly unknown[])[]): T[][] {
  let at = 0
  return groups.map((group) => {
    const run = values.slice(at, at + group.length)
    at += group.length
    return run
  })
}

/**
 * The part of a key Redis Cluster hashes: the text between the first `{` and the first `}` after it
 * when that is non-empty, else the whole key. Keys with the same tag share a slot.
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{')
  if (open === -1) return key
  const close = key.indexOf('}', open + 1)
  if (close === -1 || close === open + 1) return key
  return key.slice(open + 1, close)
}
