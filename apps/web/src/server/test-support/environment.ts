import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { pgErrorCode, quoteDatabaseName, withDatabaseName } from '@fairlane/db'
import postgres from 'postgres'
import { afterAll, beforeAll, inject } from 'vitest'

/**
 * `useTestEnvironment` of @fairlane/testing, for the web app's tests (renamed: Biome's React hook rule
 * applies in this React app and would read a `use…` function as a hook). The web app's type check (and
 * `next build`) includes its test files under Next's global types, where @fairlane/testing's
 * `spawnEntry` does not compile (Next makes `process.env.NODE_ENV` required) and the global setup's
 * `ProvidedContext` augmentation is not in view. Importing that package from here would break the
 * build, so the same steps are repeated: a database cloned from the migrated template, a key prefix.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
    redisUrl: string
  }
}

export interface TestEnvironment {
  databaseUrl: string
  redisUrl: string
  queuePrefix: string
}

const OBJECT_IN_USE = '55006'

export function setupTestEnvironment(label = 'web'): TestEnvironment {
  const environment: TestEnvironment = { databaseUrl: '', redisUrl: '', queuePrefix: '' }
  const serverUrl = () => inject('databaseServerUrl')
  const name = `fairlane_t_${randomBytes(6).toString('hex')}`
  beforeAll(async () => {
    await withAdmin(serverUrl(), async (admin) => {
      const statement = `create database ${quoteDatabaseName(name)} template ${quoteDatabaseName(inject('templateDatabase'))}`
      // The template may still have a session closing from another file's clone: retry briefly.
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.unsafe(statement)
          break
        } catch (error) {
          if (pgErrorCode(error) !== OBJECT_IN_USE || attempt >= 20) throw error
          await sleep(50 * attempt + Math.random() * 50)
        }
      }
    })
    environment.databaseUrl = withDatabaseName(serverUrl(), name)
    environment.redisUrl = inject('redisUrl')
    environment.queuePrefix = `fl-test-${label}-${randomBytes(4).toString('hex')}`
  })
  afterAll(async () => {
    await withAdmin(serverUrl(), (admin) =>
      admin.unsafe(`drop database if exists ${quoteDatabaseName(name)} with (force)`),
    )
  })
  return environment
}

async function withAdmin<T>(serverUrl: string, work: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(withDatabaseName(serverUrl, 'postgres'), { max: 1, onnotice: () => {} })
  try {
    return await work(admin)
  } finally {
    await admin.end({ timeout: 5 })
  }
}
