import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withDatabaseName } from '@fairlane/db'
import { ensureServices } from '@fairlane/stack/services'
import type { TestProject } from 'vitest/node'
import { prepareTemplateDatabase } from './database'
import './provided-context'

const root = fileURLToPath(new URL('../../..', import.meta.url))

/**
 * Once per integration run: make PostgreSQL and Redis reachable (as `pnpm start` does) and build the
 * migrated template database that every test file clones, so files run in parallel on databases
 * of their own without paying for migrations each time.
 */
export default async function setup(project: TestProject) {
  const services = await ensureServices({
    databaseUrl: process.env.DATABASE_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    dataDir: join(root, '.data', 'services'),
    log: (line) => console.log(`test setup: ${line}`),
  })
  // The maintenance database always exists; the application's own may not on a fresh machine.
  const databaseServerUrl = withDatabaseName(services.databaseUrl, 'postgres')
  const templateDatabase = await prepareTemplateDatabase(databaseServerUrl)
  project.provide('databaseServerUrl', databaseServerUrl)
  project.provide('templateDatabase', templateDatabase)
  project.provide('redisUrl', services.redisUrl)
  project.provide('redisCluster', false)
  return async () => {
    await services.stop()
  }
}
