export { createTestDatabase, prepareTemplateDatabase } from './database'
export { testRedisPrefix } from './redis'
export { useTestEnvironment } from './environment'
export { eventually, freePort, REPOSITORY_ROOT, type RunningProcess, spawnEntry } from './processes'
