import { withDatabaseName } from '@fairlane/db'
import { afterAll, beforeAll, inject } from 'vitest'
import { createTestDatabase } from './database'
import './provided-context'
import { testRedisPrefix } from './redis'

export interface TestEnvironment {
  /**
   * The file's database. In the `pgbouncer` project: through PgBouncer in transaction mode, with
   * `?prepare=false&max_pipeline=0` (DATABASE_PREPARE=false, DATABASE_PIPELINE=false) so every postgres.js
   * client on it sends unnamed statements, one at a time per connection.
   */
  databaseUrl: string
  /** The same database on PostgreSQL itself: for LISTEN and session state. Equals `databaseUrl` outside `pgbouncer`. */
  databaseDirectUrl: string
  /** False in the `pgbouncer` project (pass it as `createDatabase`'s `prepare`, as DATABASE_PREPARE does). */
  databasePrepare: boolean
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
  const environment: TestEnvironment = {
    databaseUrl: '',
    databaseDirectUrl: '',
    databasePrepare: true,
    redisUrl: '',
    redisCluster: false,
    queuePrefix: '',
  }
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const database = await createTestDatabase(inject('databaseServerUrl'), inject('templateDatabase'))
    drop = database.drop
    environment.databaseDirectUrl = database.url
    const pooled = inject('pooledDatabaseServerUrl')
    if (pooled) {
      const url = new URL(withDatabaseName(pooled, database.name))
      url.searchParams.set('prepare', 'false')
      // DATABASE_PIPELINE=false, for the clients built on the URL alone (postgres.js reads it there).
      url.searchParams.set('max_pipeline', '0')
      environment.databaseUrl = url.toString()
      environment.databasePrepare = false
    } else {
      environment.databaseUrl = database.url
    }
    environment.redisUrl = inject('redisUrl')
    environment.redisCluster = inject('redisCluster') ?? false
    environment.queuePrefix = testRedisPrefix(label)
  })
  afterAll(async () => {
    await drop?.()
  })
  return environment
}
