import { ensurePostgres } from './postgres'
import { ensureRedis } from './redis'
import { ensureRedisCluster } from './redis-cluster-service'
import type { EnsuredService, StopBySignal } from './types'

export { HOW_TO_GET_SERVICES } from './binaries'
export { type PgBouncer, type PgBouncerOptions, startPgBouncer } from './pgbouncer'
export { DEFAULT_DATABASE_URL, LOCAL_POSTGRES_PORT, probePostgres } from './postgres'
export { DEFAULT_REDIS_URL, LOCAL_REDIS_PORT, probeRedis } from './redis'
export {
  type ClusterMaster,
  controlRedisCluster,
  type LocalRedisCluster,
  parseClusterNodes,
  type RedisClusterOptions,
  startRedisCluster,
} from './redis-cluster'
export { LOCAL_REDIS_CLUSTER_PORT } from './redis-cluster-service'
export type { Probe, StopBySignal } from './types'

export interface EnsureServicesOptions {
  /** DATABASE_URL; when absent, 127.0.0.1:5432 is tried, then a project-local server on 54329. */
  databaseUrl?: string
  /** REDIS_URL; when absent, 127.0.0.1:6379 is tried, then a project-local server on 63799. */
  redisUrl?: string
  /**
   * REDIS_CLUSTER: `redisUrl` lists a cluster's seeds (used as given); without `redisUrl`, a local
   * three-master cluster with a replica each on ports 46380-46385 (started unless already there).
   */
  redisCluster?: boolean
  /** Project data folder: local servers keep their files under it (postgres/, redis/, *.log). */
  dataDir: string
  log: (line: string) => void
}

export interface Services {
  databaseUrl: string
  redisUrl: string
  /** What this call started, e.g. `['postgres:54329', 'redis:63799']`; empty when both were already there. */
  started: string[]
  /** Stops only what this call started; safe to call more than once. */
  stop(): Promise<void>
  /** What this call started, for a reaper to stop should this process die without calling stop(). */
  stopBySignal: StopBySignal[]
}

/**
 * Makes sure PostgreSQL and Redis answer before anything else runs: uses the given (or default)
 * servers when they answer, else starts project-local ones from the installed binaries, else
 * throws one message saying exactly what to install or run.
 */
export async function ensureServices(options: EnsureServicesOptions): Promise<Services> {
  const { dataDir, log } = options
  // In parallel: each may take seconds (initdb, apt-get) and they do not depend on each other.
  const [pg, redis] = await Promise.allSettled([
    ensurePostgres({ url: options.databaseUrl, dataDir, log }),
    options.redisCluster
      ? ensureRedisCluster({ url: options.redisUrl, dataDir, log })
      : ensureRedis({ url: options.redisUrl, dataDir, log }),
  ])
  if (pg.status === 'rejected' || redis.status === 'rejected') {
    // Leave the machine as we found it: stop the one that did come up if we started it.
    for (const result of [pg, redis])
      if (result.status === 'fulfilled') await result.value.stop().catch(() => {})
    const reasons = [pg, redis].flatMap((result) => (result.status === 'rejected' ? [result.reason] : []))
    if (reasons.length === 1) throw reasons[0]
    throw new Error(
      reasons.map((reason) => (reason instanceof Error ? reason.message : String(reason))).join('\n\n'),
    )
  }

  const services: EnsuredService[] = [pg.value, redis.value]
  let stopping: Promise<void> | undefined
  return {
    databaseUrl: pg.value.url,
    redisUrl: redis.value.url,
    started: services.flatMap((service) => (service.started ? [service.started] : [])),
    stopBySignal: services.flatMap((service) => service.stopBySignal ?? []),
    stop: () => {
      stopping ??= (async () => {
        // Both are attempted even if one fails, so a broken stop of one never leaves the other running.
        const results = await Promise.allSettled(services.map((service) => service.stop()))
        const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []))
        if (failures.length > 0) {
          throw new Error(
            `Stopping local services failed: ${failures.map((f) => (f as Error).message).join('; ')}`,
          )
        }
      })()
      return stopping
    },
  }
}
