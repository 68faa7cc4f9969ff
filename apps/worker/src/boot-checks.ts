import {
  createProbeConnection,
  judgeRedisPolicy,
  masterNodes,
  parseRedisInfo,
  type RedisTarget,
} from '@fairlane/queue'
import type { Logger } from 'pino'
import type postgres from 'postgres'
import { BootError, endpointOf } from './boot-error'

const PROBE_TIMEOUT_MS = 5_000

/**
 * Refuses a queue Redis that may evict keys, and says so once at boot rather than losing jobs
 * later. A fresh connection that does not retry is used so an unreachable Redis fails in seconds:
 * the worker's own connections retry forever by design and would hang here. On a cluster the
 * cluster must be `ok` and every master is checked (each holds its own share of the jobs).
 */
export async function checkQueueRedis(
  target: RedisTarget,
  environment: string,
  logger: Logger,
): Promise<void> {
  const probe = createProbeConnection(target, PROBE_TIMEOUT_MS)
  probe.on('error', () => {})
  const where = target.url.split(',').map(endpointOf).join(', ')
  const nodes: Array<{ endpoint: string; info: string }> = []
  try {
    await probe.connect()
    if (target.cluster) {
      const state = /^cluster_state:(\w+)/m.exec(String(await probe.cluster('INFO')))?.[1]
      if (state !== 'ok') throw new Error(`cluster_state is ${state ?? 'unknown'}, not ok`)
    }
    for (const node of await masterNodes(probe)) {
      const info = `${await node.info('memory')}\n${await node.info('persistence')}`
      nodes.push({ endpoint: `${node.options.host}:${node.options.port}`, info })
    }
  } catch (error) {
    throw new BootError(`cannot reach Redis at ${where} (REDIS_URL): ${reason(error)}`)
  } finally {
    probe.disconnect()
  }
  for (const node of nodes) {
    const verdict = judgeRedisPolicy(parseRedisInfo(node.info), environment)
    if (verdict.kind === 'refused') throw new BootError(`${verdict.reason} (REDIS_URL ${node.endpoint})`)
    for (const warning of verdict.warnings) logger.warn({ redis: node.endpoint }, warning)
  }
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
