import type { RedisClient } from '@fairlane/queue'
import type postgres from 'postgres'

export interface ReadinessReport {
  ready: boolean
  checks: Record<'postgres' | 'redis', { ok: boolean; ms: number; error?: string }>
}

const CHECK_TIMEOUT_MS = 1_500

/** Each dependency answers within a short timeout or counts as down; both are asked at once. */
export async function checkReadiness(deps: {
  sql: postgres.Sql
  redis: RedisClient
}): Promise<ReadinessReport> {
  const [postgresCheck, redisCheck] = await Promise.all([
    timed(async () => void (await deps.sql`select 1`)),
    timed(() => checkRedis(deps.redis)),
  ])
  return { ready: postgresCheck.ok && redisCheck.ok, checks: { postgres: postgresCheck, redis: redisCheck } }
}

/** A single Redis answers PING; a cluster must also say it serves every slot (`cluster_state:ok`). */
async function checkRedis(redis: RedisClient): Promise<void> {
  if (!redis.isCluster) {
    await redis.ping()
    return
  }
  const state = /^cluster_state:(\w+)/m.exec(String(await redis.cluster('INFO')))?.[1]
  if (state !== 'ok') throw new Error(`cluster_state is ${state ?? 'unknown'}`)
}

async function timed(check: () => Promise<void>): Promise<{ ok: boolean; ms: number; error?: string }> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)
  })
  try {
    await Promise.race([check(), timeout])
    return { ok: true, ms: Math.round(performance.now() - started) }
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - started), error: (error as Error).message }
  } finally {
    clearTimeout(timer)
  }
}
