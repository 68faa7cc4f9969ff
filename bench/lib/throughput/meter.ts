import type { Redis } from 'ioredis'
import type { Sql } from 'postgres'
import { cpuAvailable, cpuBetween, sampleCpu } from '../cpu'
import { processCpuMs } from '../pid-cpu'
import {
  commandsPerEmail,
  PG_STATS_SETTLE_MS,
  pgBackendPids,
  pgDelta,
  readPgDatabaseStats,
  readPgTableWrites,
  readRedisCommandStats,
  redisDelta,
  redisProcessId,
  sumCommandStats,
} from '../server-stats'
import { round } from '../stats'

/**
 * Where a phase's work went: CPU per process (the platform's process groups, the backends serving
 * the bench database, the queue Redis), Redis commands (INFO commandstats), PostgreSQL transactions
 * and rows of the bench database, and writes to `messages`. `stop` reads CPU and Redis at once and
 * PostgreSQL after `settleMs` (its statistics arrive late, see PG_STATS_SETTLE_MS).
 *
 * `redisServers` are the servers holding the queue: one, or a cluster's masters (a replica repeats
 * its master's writes and is not counted); their commands and CPU are summed.
 */
export async function startMeter(input: {
  sql: Sql
  redisServers: readonly Redis[]
  processGroups: Record<string, number>
}) {
  const { sql, redisServers, processGroups } = input
  const redisPids = await Promise.all(redisServers.map(redisProcessId))
  const redisCpuMs = () => redisPids.reduce((total, pid) => total + processCpuMs(pid), 0)
  const readRedis = async () => sumCommandStats(await Promise.all(redisServers.map(readRedisCommandStats)))
  const backends = new Map((await pgBackendPids(sql)).map((pid) => [pid, processCpuMs(pid)]))
  const before = {
    cpu: sampleCpu(processGroups),
    redisCpuMs: redisCpuMs(),
    redis: await readRedis(),
    pg: await readPgDatabaseStats(sql),
    messages: await readPgTableWrites(sql, 'messages'),
    claims: await readPgTableWrites(sql, 'message_claims'),
  }
  return {
    async stop(settleMs = PG_STATS_SETTLE_MS) {
      const cpu = cpuBetween(before.cpu, sampleCpu(processGroups))
      const queueRedisCpuMs = redisCpuMs() - before.redisCpuMs
      // Backends that started during the phase count from zero; one that ended during it is missed.
      let postgresBenchCpuMs = 0
      for (const pid of new Set([...backends.keys(), ...(await pgBackendPids(sql))]))
        postgresBenchCpuMs += Math.max(0, processCpuMs(pid) - (backends.get(pid) ?? 0))
      const redisStats = redisDelta(before.redis, await readRedis())
      await new Promise((resolve) => setTimeout(resolve, settleMs))
      const pg = pgDelta(before.pg, await readPgDatabaseStats(sql))
      const messages = await readPgTableWrites(sql, 'messages')
      const claims = await readPgTableWrites(sql, 'message_claims')
      return {
        cpu: {
          ...cpu,
          cpuMs: { ...cpu.cpuMs, queueRedis: queueRedisCpuMs, postgresBench: postgresBenchCpuMs },
        },
        redis: redisStats,
        pg,
        messages: {
          updates: messages.updates - before.messages.updates,
          hotUpdates: messages.hotUpdates - before.messages.hotUpdates,
          indexes: messages.indexes,
        },
        claims: {
          inserts: claims.inserts - before.claims.inserts,
          updates: claims.updates - before.claims.updates,
          indexes: claims.indexes,
        },
      }
    },
  }
}

export type Usage = Awaited<ReturnType<Awaited<ReturnType<typeof startMeter>>['stop']>>

/** A phase's usage per email, for the benchmark's last line. */
export function usagePerEmail(usage: Usage, emails: number) {
  const { seconds } = usage.cpu
  const perEmail = (value: number, digits = 2) => round(value / emails, digits)
  return {
    // 1.0 = one core, from the campaign's send time to its last `sent`. postgres and redis count every such server process on
    // the machine (other users' too; a process exiting mid-run makes them low, even negative);
    // postgresBench is the backends serving the bench database, queueRedis the bench's own Redis.
    ...(cpuAvailable()
      ? {
          cpuCores: {
            ...Object.fromEntries(
              Object.entries(usage.cpu.cpuMs).map(([name, ms]) => [name, round(ms / 1000 / seconds, 2)]),
            ),
            machine: usage.cpu.machineCores,
          },
          cpuMsPerEmail: Object.fromEntries(
            Object.entries(usage.cpu.cpuMs).map(([name, ms]) => [name, perEmail(ms)]),
          ),
        }
      : {}),
    // Commands run inside scripts count too (under their own names); scripts are one round trip each.
    redisCommandsPerEmail: perEmail(usage.redis.total),
    redisScriptCallsPerEmail: perEmail(usage.redis.scripts),
    redisUsecPerEmail: perEmail(usage.redis.usecTotal, 1),
    redisCommandsPerEmailByCommand: commandsPerEmail(usage.redis.byCommand, emails, 30),
    // Commits + rollbacks of the bench database: the per-email statements (claim, mark sent) run
    // outside transactions, so for them a transaction is one statement and one round trip.
    pgTransactionsPerEmail: perEmail(usage.pg.commits + usage.pg.rollbacks),
    pgRowsPerEmail: {
      inserted: perEmail(usage.pg.tuplesInserted),
      updated: perEmail(usage.pg.tuplesUpdated),
      fetched: perEmail(usage.pg.tuplesFetched),
      returned: perEmail(usage.pg.tuplesReturned),
    },
    // Each status change of a message row (sent, failed…) is an UPDATE; one that is not HOT (any
    // indexed column changed) writes an entry into every index of the table. A bulk release and a
    // claim are a row of the narrow `message_claims` instead (the release an insert, the claim's
    // takeover of it an update, its end a delete).
    messagesUpdatesPerEmail: perEmail(usage.messages.updates),
    messagesHotUpdateShare: round(usage.messages.hotUpdates / Math.max(1, usage.messages.updates), 3),
    messagesIndexes: usage.messages.indexes,
    claimsInsertsPerEmail: perEmail(usage.claims.inserts),
    claimsUpdatesPerEmail: perEmail(usage.claims.updates),
    claimsIndexes: usage.claims.indexes,
  }
}
