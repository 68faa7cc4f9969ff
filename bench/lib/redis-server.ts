import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRedisCluster } from '@fairlane/stack/services'
import { redisCommandCalls, redisUsedMemory, startThrowawayRedis } from '@fairlane/testing'
import { Cluster, Redis } from 'ioredis'

export interface BenchRedis {
  url: string
  /** Sum of `calls` over every `cmdstat_*` line of INFO commandstats (commands run inside scripts included). */
  commandCalls(): Promise<number>
  usedMemory(): Promise<number>
  stop(): Promise<void>
}

/**
 * A redis-server of the benchmark's own (no persistence, noeviction), so `INFO commandstats` and
 * `used_memory` count this run and nothing else on the machine.
 */
export async function startBenchRedis(): Promise<BenchRedis> {
  const redis = await startThrowawayRedis()
  return {
    url: redis.url,
    commandCalls: () => redisCommandCalls(redis.admin),
    usedMemory: () => redisUsedMemory(redis.admin),
    stop: () => redis.stop(),
  }
}

/**
 * The Redis a benchmark runs the platform on: a redis-server of its own, or (`--cluster`) a local
 * three-master Redis Cluster (one replica each) from `startRedisCluster` (@fairlane/stack). The
 * platform gets `env`; the benchmark's own probes `client()`. Counters (`commandCalls`, `usedMemory`)
 * are summed over the masters (a replica repeats its master's writes); `masterUrls` are the servers
 * to meter one by one (INFO commandstats, CPU of their processes).
 */
export interface QueueRedis extends BenchRedis {
  kind: 'single-node' | 'cluster'
  env: Record<string, string>
  client(): Redis | Cluster
  masterUrls(): Promise<string[]>
}

export async function startQueueRedis(cluster: boolean, log: (line: string) => void): Promise<QueueRedis> {
  if (!cluster) {
    const redis = await startBenchRedis()
    return {
      ...redis,
      kind: 'single-node',
      env: { REDIS_URL: redis.url },
      client: () => new Redis(redis.url, { maxRetriesPerRequest: null }),
      masterUrls: async () => [redis.url],
    }
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'fairlane-bench-cluster-'))
  const started = await startRedisCluster({ dataDir, log })
  const admins = started.ports.map((port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }))
  const masters = async () => {
    const roles = await Promise.all(admins.map((admin) => admin.info('replication')))
    return admins.filter((_, index) => /role:master/.test(roles[index] ?? ''))
  }
  const sum = async (read: (admin: Redis) => Promise<number>) =>
    (await Promise.all((await masters()).map(read))).reduce((total, value) => total + value, 0)
  const seeds = started.url.split(',').map((seed) => {
    const url = new URL(seed.includes('://') ? seed : `redis://${seed}`)
    return { host: url.hostname, port: Number(url.port || 6379) }
  })
  return {
    kind: 'cluster',
    url: started.url,
    env: { REDIS_URL: started.url, REDIS_CLUSTER: 'true' },
    client: () => new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: null } }),
    masterUrls: async () => (await masters()).map((admin) => `redis://127.0.0.1:${admin.options.port}`),
    commandCalls: () => sum(redisCommandCalls),
    usedMemory: () => sum(redisUsedMemory),
    async stop() {
      for (const admin of admins) admin.disconnect()
      await started.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
