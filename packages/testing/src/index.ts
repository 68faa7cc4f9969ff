/** Failover and masters of the `cluster` project's Redis Cluster (its ports: `inject('redisClusterPorts')`). */
export { controlRedisCluster, startRedisCluster } from '@fairlane/stack/services'
export { createTestDatabase, prepareTemplateDatabase } from './database'
export { startTestDnsServer, type TestDnsRecord, type TestDnsServer } from './dns-server'
export {
  domainRecordsToPublish,
  type ListedDnsRecord,
  publishDomainRecords,
} from './domain-records'
export { setupTestEnvironment, type TestEnvironment } from './environment'
export { eventually, freePort, REPOSITORY_ROOT, type RunningProcess, spawnEntry } from './processes'
export { connectTestRedis, testRedisPrefix, testRedisTarget } from './redis'
export {
  redisCommandCalls,
  redisUsedMemory,
  startThrowawayRedis,
  type ThrowawayRedis,
} from './redis-server'
export { ensureWebBuild } from './web-build'
