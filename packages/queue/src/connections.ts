import { parseRedisSeeds } from '@fairlane/config'
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis'

/**
 * A connection to the queue Redis: one node, or a Redis Cluster (`REDIS_CLUSTER=true`). BullMQ takes
 * either as `connection`; code that must tell them apart (SCAN, FLUSHALL, INFO: per node on a cluster)
 * uses `masterNodes`.
 */
export type RedisClient = Redis | Cluster

/** Where the queue Redis is: `REDIS_URL` and `REDIS_CLUSTER` as the config parsed them. */
export interface RedisTarget {
  /** One URL, or with `cluster` one or more comma-separated seed nodes. */
  url: string
  cluster: boolean
}

export function redisTarget(config: { REDIS_URL: string; REDIS_CLUSTER: boolean }): RedisTarget {
  return { url: config.REDIS_URL, cluster: config.REDIS_CLUSTER }
}

export interface ErrorLogger {
  error(fields: Record<string, unknown>, message: string): void
}

/**
 * Producers (the web app, the relay) fail fast: with no offline queue a command errors at once while
 * Redis is away, instead of hanging the request that issued it. On a cluster the cluster-level offline
 * queue is off (the per-node connections keep theirs, which only covers a node being reconnected
 * after a MOVED or a failover).
 */
export function createProducerConnection(
  target: RedisTarget,
  name: string,
  logger: ErrorLogger,
): RedisClient {
  const client = target.cluster
    ? createCluster(
        target.url,
        { connectionName: name, maxRetriesPerRequest: 1 },
        { enableOfflineQueue: false },
      )
    : new Redis(target.url, { connectionName: name, enableOfflineQueue: false, maxRetriesPerRequest: 1 })
  return withErrorLog(client, name, logger)
}

/**
 * Workers block on Redis and must retry forever: BullMQ requires `maxRetriesPerRequest: null` for
 * its blocking connections (on a cluster in `redisOptions`, where BullMQ looks for it), and the
 * offline queue stays on so a Redis restart or a failover is ridden out.
 */
export function createWorkerConnection(target: RedisTarget, name: string, logger: ErrorLogger): RedisClient {
  const client = target.cluster
    ? createCluster(target.url, { connectionName: name, maxRetriesPerRequest: null }, {})
    : new Redis(target.url, { connectionName: name, maxRetriesPerRequest: null })
  return withErrorLog(client, name, logger)
}

/**
 * A one-shot connection that gives up instead of retrying: for boot checks and health probes,
 * where the answer "Redis is not there" must come quickly. Call `connect()` before use.
 */
export function createProbeConnection(
  target: RedisTarget,
  timeoutMs: number,
  options: RedisOptions = {},
): RedisClient {
  const redisOptions: RedisOptions = {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...options,
  }
  if (!target.cluster) {
    return new Redis(target.url, { lazyConnect: true, enableOfflineQueue: false, ...redisOptions })
  }
  return createCluster(target.url, redisOptions, {
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    slotsRefreshTimeout: timeoutMs,
  })
}

/**
 * A cluster client from the seed list. Auto-pipelining groups the commands issued in one event-loop
 * turn per node, so per-tenant reads (one key, one slot each) cost one round trip per node, not one
 * per tenant. Credentials and TLS come from the first seed and apply to every node.
 */
export function createCluster(
  seedList: string,
  redisOptions: RedisOptions,
  clusterOptions: ClusterOptions,
): Cluster {
  const seeds = parseRedisSeeds(seedList)
  const first = seeds[0] as (typeof seeds)[number]
  return new Cluster(
    seeds.map((seed) => ({ host: seed.host, port: seed.port })),
    {
      enableAutoPipelining: true,
      ...clusterOptions,
      redisOptions: {
        ...(first.username ? { username: first.username } : {}),
        ...(first.password ? { password: first.password } : {}),
        ...(first.tls ? { tls: {} } : {}),
        ...redisOptions,
      },
    },
  )
}

/** An ioredis client without an `error` listener crashes the process on the first network blip. */
function withErrorLog<T extends RedisClient>(redis: T, name: string, logger: ErrorLogger): T {
  redis.on('error', (error: Error) => logger.error({ err: error.message, connection: name }, 'redis error'))
  return redis
}
