/**
 * Bulk throughput, through the real processes (web, worker, sink) on a Redis of the benchmark's own:
 * one tenant with an unlimited plan sends a campaign of realistic mails (4 KB of HTML and text,
 * personalised, with unsubscribe headers) through dispatch → pacer → bulk lane workers → idempotent
 * send → the sink process, timed from the first release to the last `sent`. In the same run, on the
 * same Redis and sink: raw BullMQ with a no-op processor, and raw pooled nodemailer sending the same
 * mails. Progress on stderr; the last stdout line is one JSON object (see `runThroughput`).
 *
 *   pnpm bench:throughput [--emails 20000] [--workers 1] [--lane-shards 1] [--cluster] [--tenants 1] [--no-baselines] [--no-web] [--signed]
 *   pnpm bench:throughput --workers N --web M [--emails 20000]
 *     [--backlog N] [--history-days D] [--history-per-day 10000] [--name throughput]
 *
 * `--backlog N` puts N pending bulk rows of another tenant (a big campaign waiting at 1 mail/s) in
 * `messages` before the run, and `--history-days D` D days of finished mail (10,000 a day) with their
 * events, both in bulk: `pgRowsPerEmail` should not grow with either (README, Bounded PostgreSQL).
 * `--name` names the bench's database and ports (`fairlane_bench_<name>`), so two runs do not collide.
 *
 * `--signed` adds `signing` to the result: after the run, the same number of mails twice more, as
 * platform mail (unsigned) and from a verified domain (DKIM-signed, RSA-2048), with the worker's CPU
 * per email of each and their difference, the cost of signing (see lib/throughput/signing.ts).
 * `--signed-rate-control` adds a third phase to each round: unsigned, slowed by a reply delay at the
 * sink to the signed phase's rate, so the cost of the slower rate shows apart from signing's.
 *
 * `--workers 2` runs two worker processes (one per core, as a deployment would), sharing the lane.
 *
 * `--web M` takes the load over HTTP instead of a campaign: the mails are POSTed to /api/v1/messages
 * of M web processes while N worker processes deliver them, all on the one PostgreSQL and Redis;
 * the result gains the configuration and per-process figures (lib/throughput/api-load.ts).
 *
 * `--lane-shards 3` runs every process with LANE_SHARDS=3 (each lane split into three queues; README,
 * "Sharded lanes"). One tenant's campaign goes to one shard (what sharding costs, or what one shard
 * does); with `--tenants K` the senders spread over the shards.
 *
 * `--cluster` runs the platform on a local three-master Redis Cluster (a replica each) started by the
 * benchmark; Redis commands and CPU are summed over the masters. `--tenants K` splits the campaign's
 * recipients over K tenants of their own (unlimited plans, one campaign each, all due at once, spread
 * evenly over the lane shards), so with `--lane-shards 3` the work goes to every shard:
 *
 *   pnpm bench:throughput --no-web --no-baselines --cluster --tenants 6 --lane-shards 3 --emails 6000
 *
 * `--no-web` runs sink and worker only and sets the plan and schedules the campaign in the database
 * (as the admin and campaign APIs would): no web build needed, and nothing else changes.
 *
 * Settings the benchmark gives the platform unless the environment sets them (reported under
 * `overrides`): see TUNING below.
 */
import { parseArgs } from 'node:util'
import { fromBenchPlatform } from './lib/delivery-platform'
import { type BenchPlatform, startBenchPlatform } from './lib/platform'
import { startQueueRedis } from './lib/redis-server'
import { API_LOAD_TUNING, runManyProcessThroughput } from './lib/throughput/api-load'
import { runThroughput } from './lib/throughput/scenario'

const { values: args } = parseArgs({
  options: {
    emails: { type: 'string', default: '20000' },
    workers: { type: 'string', default: '1' },
    'lane-shards': { type: 'string', default: '1' },
    cluster: { type: 'boolean', default: false },
    tenants: { type: 'string', default: '1' },
    'no-baselines': { type: 'boolean', default: false },
    'no-web': { type: 'boolean', default: false },
    signed: { type: 'boolean', default: false },
    'signed-rate-control': { type: 'boolean', default: false },
    web: { type: 'string' },
    backlog: { type: 'string', default: '0' },
    'history-days': { type: 'string', default: '0' },
    'history-per-day': { type: 'string', default: '10000' },
    name: { type: 'string', default: 'throughput' },
  },
})
const emails = Number(args.emails)
if (!Number.isSafeInteger(emails) || emails < 1) throw new Error('--emails is a positive whole number')
const workers = Number(args.workers)
if (!Number.isSafeInteger(workers) || workers < 1 || workers > 8)
  throw new Error('--workers is a whole number from 1 to 8')
const webs = args.web === undefined ? undefined : Number(args.web)
if (webs !== undefined && (!Number.isSafeInteger(webs) || webs < 1 || webs > 8 || args['no-web']))
  throw new Error('--web is a whole number from 1 to 8 (and needs the web: not with --no-web)')
const wholeNumber = (flag: string, value: string | undefined) => {
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number < 0) throw new Error(`--${flag} is a whole number`)
  return number
}
const backlog = wholeNumber('backlog', args.backlog)
const historyDays = wholeNumber('history-days', args['history-days'])
const historyPerDay = wholeNumber('history-per-day', args['history-per-day'])
const laneShards = Number(args['lane-shards'])
if (!Number.isSafeInteger(laneShards) || laneShards < 1 || laneShards > 64)
  throw new Error('--lane-shards is a whole number from 1 to 64')
if (args.cluster && webs !== undefined) throw new Error('--cluster is for a campaign run: not with --web')
const tenants = Number(args.tenants)
if (!Number.isSafeInteger(tenants) || tenants < 1 || tenants > 64 || (tenants > 1 && webs !== undefined))
  throw new Error('--tenants is a whole number from 1 to 64 (a campaign run: not with --web)')
const progress = (line: string) => console.error(`bench:throughput ${line}`)

/** The platform's defaults, except what this job needs (each overridable from the environment). */
const TUNING: Record<string, string> = {
  // The sink keeps the raw run and the platform's run apart by clearing in between; this only makes
  // sure a big run is not cut by its ring buffer.
  MAILSINK_MAX_MESSAGES: String(Math.max(50_000, emails + 1_000)),
  // The signing phases measure the worker's CPU: the sink, on the same two cores, checks one signed
  // mail in 100 (its ~1.5 ms per check was crowding the worker in the signed phase only).
  MAILSINK_AUTH_CHECK_EVERY: '100',
  ...(webs === undefined ? {} : API_LOAD_TUNING),
}
const overrides = Object.fromEntries(Object.entries(TUNING).filter(([name]) => !process.env[name]))

const redis = await startQueueRedis(args.cluster, progress)
let bench: BenchPlatform | undefined
try {
  bench = await startBenchPlatform(
    args.name !== 'throughput' ? args.name : webs === undefined ? 'throughput' : 'throughput_procs',
    { ...redis.env, LANE_SHARDS: String(laneShards), ...overrides },
    { web: !args['no-web'] },
  )
  if (webs !== undefined) {
    const result = await runManyProcessThroughput(bench, { workers, webs, emails, log: progress })
    console.log(JSON.stringify({ ...result, laneShards, overrides }))
  } else {
    if (workers > 1) {
      progress(`starting ${workers - 1} more worker process(es)`)
      await bench.addWorkers(workers - 1)
    }
    const result = await runThroughput(fromBenchPlatform(bench), {
      emails,
      baselines: !args['no-baselines'],
      settleStats: true,
      signed: args.signed,
      signedRateControl: args['signed-rate-control'],
      backlog,
      historyDays,
      historyPerDay,
      tenants,
      redisServerUrls: await redis.masterUrls(),
      log: progress,
    })
    console.log(
      JSON.stringify({ ...result, workerProcesses: workers, laneShards, redis: redis.kind, overrides }),
    )
  }
} finally {
  await bench?.stop()
  await redis.stop()
}
