import 'server-only'
import { type Config, loadConfig } from '@fairlane/config'
import { createDatabase } from '@fairlane/db'
import { createProducerConnection } from '@fairlane/queue'
import type { Redis } from 'ioredis'

/**
 * The web app's composition root: the one place that creates its database client and Redis
 * connection. Built on first use (not on import) because Next.js imports route modules at build
 * time, and kept on globalThis so development hot reloads do not leak pools.
 */
export interface WebContainer {
  config: Config
  database: ReturnType<typeof createDatabase>
  redis: Redis
}

const holder = globalThis as typeof globalThis & { fairlaneContainer?: WebContainer }

export function container(): WebContainer {
  holder.fairlaneContainer ??= build()
  return holder.fairlaneContainer
}

function build(): WebContainer {
  const config = loadConfig()
  const logger = {
    error: (fields: Record<string, unknown>, message: string) => console.error(message, fields),
  }
  return {
    config,
    database: createDatabase(config.DATABASE_URL, { max: config.DATABASE_POOL_MAX, applicationName: 'web' }),
    redis: createProducerConnection(config.REDIS_URL, 'web', logger),
  }
}
