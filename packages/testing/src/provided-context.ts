/** What the integration project's global setup hands to every test file through `inject`. */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
    redisUrl: string
    /** The `cluster` project: `redisUrl` lists the seeds of a local Redis Cluster. */
    redisCluster: boolean
    /** The `cluster` project: every node's port, for `controlRedisCluster` (failover). */
    redisClusterPorts: number[]
  }
}

export {}
