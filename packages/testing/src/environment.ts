import { afterAll, beforeAll, inject } from 'vitest'
import { createTestDatabase } from './database'
import './provided-context'
import { testRedisPrefix } from './redis'

export interface TestEnvironment {
  databaseUrl: string
  redisUrl: string
  queuePrefix: string
}

/**
 * Call at the top of an integration test file: gives the file a fresh migrated database (dropped
 * afterwards) and a Redis key prefix of its own. Read the fields inside tests or hooks, not at
 * import time: they are filled in by `beforeAll`.
 */
export function setupTestEnvironment(label?: string): TestEnvironment {
  const environment: TestEnvironment = { databaseUrl: '', redisUrl: '', queuePrefix: '' }
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const database = await createTestDatabase(inject('databaseServerUrl'), inject('templateDatabase'))
    drop = database.drop
    environment.databaseUrl = database.url
    environment.redisUrl = inject('redisUrl')
    environment.queuePrefix = testRedisPrefix(label)
  })
  afterAll(async () => {
    await drop?.()
  })
  return environment
}
