export {
  createDatabase,
  type Database,
  type DatabaseHandle,
  type DatabaseOptions,
  type Executor,
  poolerSettings,
  type Transaction,
} from './client'
export { pgErrorCode, retryOnDeadlock } from './errors'
export * as schema from './schema'
export * from './schema'
export { databaseNameOf, describeServer, quoteDatabaseName, withDatabaseName } from './url'
