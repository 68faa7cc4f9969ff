import { join } from 'node:path'
import { parseRedisSeeds } from '@fairlane/config'
import { probeRedis } from './redis'
import { startRedisCluster } from './redis-cluster'
import type { EnsuredService } from './types'

/** Where `pnpm start` runs its local cluster (six nodes: this port and the five after it; each node's cluster bus listens 10000 higher, so below 55536). */
export const LOCAL_REDIS_CLUSTER_PORT = 46380
const LOCAL_NODES = 6

/**
 * REDIS_CLUSTER=true: the given seeds when the first answers, else (no REDIS_URL) a project-local
 * three-master cluster, reused when an earlier start left it running.
 */
export async function ensureRedisCluster(options: {
  url?: string
  dataDir: string
  log: (line: string) => void
}): Promise<EnsuredService> {
  const { log } = options
  if (options.url !== undefined) {
    const seeds = parseRedisSeeds(options.url)
    const probes = await Promise.all(seeds.map((seed) => probeRedis(seed.url)))
    if (!probes.some((probe) => probe.state === 'up')) {
      const reasons = probes.map(
        (probe, index) => `${seeds[index]?.url}: ${'reason' in probe ? probe.reason : 'up'}`,
      )
      throw new Error(
        `No seed of the Redis Cluster (REDIS_URL, REDIS_CLUSTER=true) answers: ${reasons.join('; ')}. ` +
          'Start the cluster, or unset REDIS_URL to have a local one started.',
      )
    }
    log(`redis cluster: using ${seeds.map((seed) => `${seed.host}:${seed.port}`).join(', ')}`)
    return { url: options.url, started: null, stop: async () => {} }
  }
  const ports = Array.from({ length: LOCAL_NODES }, (_, index) => LOCAL_REDIS_CLUSTER_PORT + index)
  const url = ports.map((port) => `redis://127.0.0.1:${port}`).join(',')
  if ((await probeRedis(`redis://127.0.0.1:${LOCAL_REDIS_CLUSTER_PORT}`)).state === 'up') {
    log(`redis cluster: using 127.0.0.1:${ports.join(', ')} (already running)`)
    return { url, started: null, stop: async () => {} }
  }
  const cluster = await startRedisCluster({
    dataDir: join(options.dataDir, 'redis-cluster'),
    basePort: LOCAL_REDIS_CLUSTER_PORT,
    log,
  })
  return {
    url: cluster.url,
    started: `redis-cluster:${LOCAL_REDIS_CLUSTER_PORT}-${LOCAL_REDIS_CLUSTER_PORT + LOCAL_NODES - 1}`,
    stop: cluster.stop,
    stopBySignal: cluster.stopBySignal,
  }
}
