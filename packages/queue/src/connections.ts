import { Redis, type RedisOptions } from 'ioredis'

export interface ErrorLogger {
  error(fields: Record<string, unknown>, message: string): void
}

/**
 * Producers (the web app, the relay) fail fast: with no offline queue a command errors at once while
 * Redis is away, instead of hanging the request that issued it.
 */
export function createProducerConnection(url: string, name: string, logger: ErrorLogger): Redis {
  return withErrorLog(
    new Redis(url, { connectionName: name, enableOfflineQueue: false, maxRetriesPerRequest: 1 }),
    name,
    logger,
  )
}

/**
 * Workers block on Redis and must retry forever: BullMQ requires `maxRetriesPerRequest: null` for
 * its blocking connections, and the offline queue stays on so a Redis restart is ridden out.
 */
export function createWorkerConnection(url: string, name: string, logger: ErrorLogger): Redis {
  return withErrorLog(new Redis(url, { connectionName: name, maxRetriesPerRequest: null }), name, logger)
}

/**
 * A one-shot connection that gives up instead of retrying: for boot checks and health probes,
 * where the answer "Redis is not there" must come quickly.
 */
export function createProbeConnection(url: string, timeoutMs: number, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...options,
  })
}

/** An ioredis client without an `error` listener crashes the process on the first network blip. */
function withErrorLog(redis: Redis, name: string, logger: ErrorLogger): Redis {
  redis.on('error', (error: Error) => logger.error({ err: error.message, connection: name }, 'redis error'))
  return redis
}
