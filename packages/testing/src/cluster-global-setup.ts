import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withDatabaseName } from '@fairlane/db'
import { ensureServices, startRedisCluster } from '@fairlane/stack/services'
import type { TestProject } from 'vitest/node'
import { prepareTemplateDatabase } from './database'
import './provided-context'

const root = fileURLToPath(new URL('../../..', import.meta.url))

/**
 * The `cluster` project's setup: PostgreSQL as for the integration project, and a local Redis Cluster
 * (three masters with a replica each, on free ports) started once for the run, so the files of this
 * project run their delivery, fairness and chaos tests against it (`redisCluster: true`).
 */
export default async function setup(project: TestProject) {
  const log = (line: string) => console.log(`cluster setup: ${line}`)
  const services = await ensureServices({
    databaseUrl: process.env.DATABASE_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    dataDir: join(root, '.data', 'services'),
    log,
  })
  const cluster = await startRedisCluster({
    dataDir: join(root, '.data', 'test-redis-cluster', String(process.pid)),
    log,
  }).catch(async (error: unknown) => {
    await services.stop()
    throw error
  })
  const databaseServerUrl = withDatabaseName(services.databaseUrl, 'postgres')
  project.provide('databaseServerUrl', databaseServerUrl)
  project.provide('templateDatabase', await prepareTemplateDatabase(databaseServerUrl))
  project.provide('redisUrl', cluster.url)
  project.provide('redisCluster', true)
  // The failover test asks the cluster for its masters and fails one over (`clusterControl`).
  project.provide('redisClusterPorts', cluster.ports)
  return async () => {
    await cluster.stop()
    await services.stop()
  }
}
