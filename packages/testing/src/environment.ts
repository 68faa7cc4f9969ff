import { afterAll, beforeAll, inject } from 'vitest'
import { createTestDatabase } from './database'
import './provided-context'
import { testRedisPrefix } from './redis'

export interface TestEnvironment {
  databaseUrl: string
  /** With `redisCluster`: the seeds of a Redis Cluster (comma-separated). */
  redisUrl: string
  /** True in the `cluster` project: connect with `connectTestRedis` / `testRedisTarget`. */
  redisCluster: boolean
  queuePrefix: string
}

/**
 * Call at the top of an integration test file: gives the file a fresh migrated database (dropped
 * afterwards) and a Redis key prefix of its own. Read the fields inside tests or hooks, not at
 * import time: they are filled in by `beforeAll`.
 */
export function setupTestEnvironment(label?: string): TestEnvironment {
  const environment: TestEnvironment = { databaseUrl: '', redisUrl: '', redisCluster: false, queuePrefix: '' }
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const database = await createTestDatabase(inject('databaseServerUrl'), inject('templateDatabase'))
    drop = database.drop
    environment.databaseUrl = database.url
    environment.redisUrl = inject('redisUrl')
    environment.redisCluster = inject('redisCluster') ?? false
    environment.queuePrefix = testRedisPrefix(label)
  })
  afterAll(async () => {
    await drop?.()
  })
  return environment
}
