export { createTestDatabase, prepareTemplateDatabase } from './database'
export { useTestEnvironment } from './environment'
export { eventually, freePort, REPOSITORY_ROOT, type RunningProcess, spawnEntry } from './processes'
export { testRedisPrefix } from './redis'
