import { createProbeConnection, judgeRedisPolicy, parseRedisInfo } from '@fairlane/queue'
import type { Logger } from 'pino'
import type postgres from 'postgres'
import { BootError, endpointOf } from './boot-error'

const PROBE_TIMEOUT_MS = 5_000

/**
 * Refuses a queue Redis that may evict keys, and says so once at boot rather than losing jobs
 * later. A fresh connection that does not retry is used so an unreachable Redis fails in seconds:
 * the worker's own connections retry forever by design and would hang here.
 */
export async function checkQueueRedis(redisUrl: string, environment: string, logger: Logger): Promise<void> {
  const probe = createProbeConnection(redisUrl, PROBE_TIMEOUT_MS)
  probe.on('error', () => {})
  let info: string
  try {
    await probe.connect()
    info = `${await probe.info('memory')}\n${await probe.info('persistence')}`
  } catch (error) {
    throw new BootError(`cannot reach Redis at ${endpointOf(redisUrl)} (REDIS_URL): ${reason(error)}`)
  } finally {
    probe.disconnect()
  }
  const verdict = judgeRedisPolicy(parseRedisInfo(info), environment)
  if (verdict.kind === 'refused') throw new BootError(`${verdict.reason} (REDIS_URL ${endpointOf(redisUrl)})`)
  for (const warning of verdict.warnings) logger.warn({ redis: endpointOf(redisUrl) }, warning)
}

export async function checkDatabase(sql: postgres.Sql, databaseUrl: string): Promise<void> {
  try {
    await sql`select 1`
  } catch (error) {
    throw new BootError(
      `cannot reach PostgreSQL at ${endpointOf(databaseUrl)} (DATABASE_URL): ${reason(error)}`,
    )
  }
}

function reason(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message
  return String(error)
}
