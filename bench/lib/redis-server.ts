import { redisCommandCalls, redisUsedMemory, startThrowawayRedis } from '@fairlane/testing'

export interface BenchRedis {
  url: string
  /** Sum of `calls` over every `cmdstat_*` line of INFO commandstats (commands run inside scripts included). */
  commandCalls(): Promise<number>
  usedMemory(): Promise<number>
  stop(): Promise<void>
}

/**
 * A redis-server of the benchmark's own (no persistence, noeviction), so `INFO commandstats` and
 * `used_memory` count this run and nothing else on the machine.
 */
export async function startBenchRedis(): Promise<BenchRedis> {
  const redis = await startThrowawayRedis()
  return {
    url: redis.url,
    commandCalls: () => redisCommandCalls(redis.admin),
    usedMemory: () => redisUsedMemory(redis.admin),
    stop: () => redis.stop(),
  }
}
