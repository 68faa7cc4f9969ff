import type { Redis } from 'ioredis'
import type { Sql } from 'postgres'
import { round } from './stats'

/**
 * Counters of the servers a benchmark talks to, read before and after a phase. Redis: INFO
 * commandstats, meaningful only on a Redis of the benchmark's own (commands that scripts run count
 * too, under their own names, besides the EVALSHA that ran them). PostgreSQL: pg_stat_database of
 * the benchmark's own database. Backends publish their counters when they go idle, at most once a
 * second, and an idle backend after up to 10 s: read the "after" side at least that long after the
 * phase ended (`PG_STATS_SETTLE_MS`).
 */
export const PG_STATS_SETTLE_MS = 11_000

export interface RedisCommandStats {
  /** Command name → calls. */
  calls: Record<string, number>
  /** Command name → microseconds Redis spent in it. */
  usec: Record<string, number>
}

export async function readRedisCommandStats(redis: Redis): Promise<RedisCommandStats> {
  const info = await redis.info('commandstats')
  const calls: Record<string, number> = {}
  const usec: Record<string, number> = {}
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    const name = match[1] as string
    calls[name] = Number(match[2])
    usec[name] = Number(match[3])
  }
  return { calls, usec }
}

/** Several servers' commandstats as one (a cluster's masters). */
export function sumCommandStats(servers: readonly RedisCommandStats[]): RedisCommandStats {
  const total: RedisCommandStats = { calls: {}, usec: {} }
  for (const server of servers) {
    for (const [name, calls] of Object.entries(server.calls))
      total.calls[name] = (total.calls[name] ?? 0) + calls
    for (const [name, usec] of Object.entries(server.usec)) total.usec[name] = (total.usec[name] ?? 0) + usec
  }
  return total
}

/** The `top` commands run most (`RedisDelta.byCommand`), most first, each per email. */
export function commandsPerEmail(
  byCommand: Record<string, number>,
  emails: number,
  top: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byCommand)
      .sort(([, a], [, b]) => b - a)
      .slice(0, top)
      .map(([name, calls]) => [name, round(calls / Math.max(1, emails), 2)]),
  )
}

/** Redis's own process id (INFO server), so its CPU is told apart from other redis-servers'. */
export async function redisProcessId(redis: Redis): Promise<number> {
  const match = /^process_id:(\d+)/m.exec(await redis.info('server'))
  return Number(match?.[1] ?? 0)
}

export interface RedisDelta {
  total: number
  /** EVAL/EVALSHA/FCALL: one round trip each, however many commands they run inside. */
  scripts: number
  usecTotal: number
  byCommand: Record<string, number>
}

export function redisDelta(before: RedisCommandStats, after: RedisCommandStats): RedisDelta {
  const byCommand: Record<string, number> = {}
  let total = 0
  let scripts = 0
  let usecTotal = 0
  for (const [name, calls] of Object.entries(after.calls)) {
    const delta = calls - (before.calls[name] ?? 0)
    if (delta <= 0) continue
    byCommand[name] = delta
    total += delta
    usecTotal += (after.usec[name] ?? 0) - (before.usec[name] ?? 0)
    if (/^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/.test(name)) scripts += delta
  }
  return { total, scripts, usecTotal, byCommand }
}

export interface PgDatabaseStats {
  commits: number
  rollbacks: number
  tuplesInserted: number
  tuplesUpdated: number
  tuplesDeleted: number
  tuplesReturned: number
  tuplesFetched: number
  blocksRead: number
  blocksHit: number
}

/**
 * This database's counters as published so far. The calling session's own pending counters (the
 * benchmark's seeding) are published first, so they do not land in the next phase's delta.
 */
export async function readPgDatabaseStats(sql: Sql): Promise<PgDatabaseStats> {
  // PostgreSQL 15+: publish at the end of this transaction; older servers publish within a second.
  await sql`select pg_stat_force_next_flush()`.catch(() => {})
  const [row] = await sql<
    {
      xact_commit: string
      xact_rollback: string
      tup_inserted: string
      tup_updated: string
      tup_deleted: string
      tup_returned: string
      tup_fetched: string
      blks_read: string
      blks_hit: string
    }[]
  >`select xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned,
      tup_fetched, blks_read, blks_hit
    from pg_stat_database where datname = current_database()`
  if (!row) throw new Error('pg_stat_database has no row for this database')
  return {
    commits: Number(row.xact_commit),
    rollbacks: Number(row.xact_rollback),
    tuplesInserted: Number(row.tup_inserted),
    tuplesUpdated: Number(row.tup_updated),
    tuplesDeleted: Number(row.tup_deleted),
    tuplesReturned: Number(row.tup_returned),
    tuplesFetched: Number(row.tup_fetched),
    blocksRead: Number(row.blks_read),
    blocksHit: Number(row.blks_hit),
  }
}

export function pgDelta(before: PgDatabaseStats, after: PgDatabaseStats): PgDatabaseStats {
  const delta = {} as PgDatabaseStats
  for (const key of Object.keys(after) as (keyof PgDatabaseStats)[]) delta[key] = after[key] - before[key]
  return delta
}

/** Whether pg_stat_statements is loaded (it needs shared_preload_libraries, i.e. a server restart). */
export async function pgStatStatementsAvailable(sql: Sql): Promise<boolean> {
  try {
    await sql`select 1 from pg_stat_statements limit 1`
    return true
  } catch {
    return false
  }
}

/**
 * Statements run in this database, by query text, from pg_stat_statements (when loaded): calls
 * summed per normalised query. The caller diffs two readings.
 */
export async function readPgStatements(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ query: string; calls: string }[]>`
    select s.query, sum(s.calls)::bigint as calls from pg_stat_statements s
    join pg_database d on d.oid = s.dbid
    where d.datname = current_database()
    group by s.query`
  return new Map(rows.map((row) => [row.query, Number(row.calls)]))
}

/**
 * Server processes serving this database right now (the worker's pool, the relay's LISTEN, the
 * web's pool): their CPU is this database's share of the shared PostgreSQL server's.
 */
export async function pgBackendPids(sql: Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
  return rows.map((row) => row.pid)
}

export interface PgTableWrites {
  inserts: number
  updates: number
  /** Updates that changed no indexed column and stayed on their page: no index entries written. */
  hotUpdates: number
  indexes: number
}

/** Write counters of one table of this database, and how many indexes each non-HOT update maintains. */
export async function readPgTableWrites(sql: Sql, table: string): Promise<PgTableWrites> {
  const [row] = await sql<{ ins: string; upd: string; hot: string; indexes: number }[]>`
    select n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot,
      (select count(*)::int from pg_index i where i.indrelid = s.relid) as indexes
    from pg_stat_user_tables s where relname = ${table}`
  return {
    inserts: Number(row?.ins ?? 0),
    updates: Number(row?.upd ?? 0),
    hotUpdates: Number(row?.hot ?? 0),
    indexes: row?.indexes ?? 0,
  }
}
