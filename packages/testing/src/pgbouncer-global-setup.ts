import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startPgBouncer } from '@fairlane/stack/services'
import type { TestProject } from 'vitest/node'
import setupServices from './global-setup'
import './provided-context'

const root = fileURLToPath(new URL('../../..', import.meta.url))

/**
 * The `pgbouncer` project's setup: the integration project's (PostgreSQL, Redis, the template), then
 * PgBouncer in transaction mode in front of that PostgreSQL. Test files then reach their database
 * through PgBouncer with prepared statements off (`setupTestEnvironment`), and PostgreSQL itself on
 * `databaseDirectUrl`.
 */
export default async function setup(project: TestProject) {
  const stopServices = await setupServices(project)
  const bouncer = await startPgBouncer({
    serverUrl: project.getProvidedContext().databaseServerUrl,
    dataDir: join(root, '.data', 'services'),
    poolMode: 'transaction',
    log: (line) => console.log(`test setup: ${line}`),
  }).catch(async (error: unknown) => {
    await stopServices()
    throw error
  })
  project.provide('pooledDatabaseServerUrl', bouncer.url('postgres'))
  return async () => {
    await bouncer.stop()
    await stopServices()
  }
}
