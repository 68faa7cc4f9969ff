/** What the integration (and pgbouncer) project's global setup hands to every test file through `inject`. */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
    redisUrl: string
    /**
     * Only in the `pgbouncer` project: PgBouncer (transaction mode) in front of `databaseServerUrl`'s
     * server. Test files' databases are still created directly; they are used through this.
     */
    pooledDatabaseServerUrl?: string
    /** The `cluster` project: `redisUrl` lists the seeds of a local Redis Cluster. */
    redisCluster: boolean
    /** The `cluster` project: every node's port, for `controlRedisCluster` (failover). */
    redisClusterPorts: number[]
  }
}

export {}
