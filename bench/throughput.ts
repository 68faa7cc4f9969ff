/**
 * Bulk throughput, through the real processes (web, worker, sink) on a Redis of the benchmark's own:
 * one tenant with an unlimited plan sends a campaign of realistic mails (4 KB of HTML and text,
 * personalised, with unsubscribe headers) through dispatch → pacer → bulk lane workers → idempotent
 * send → the sink process, timed from the first release to the last `sent`. In the same run, on the
 * same Redis and sink: raw BullMQ with a no-op processor, and raw pooled nodemailer sending the same
 * mails. Progress on stderr; the last stdout line is one JSON object (see `runThroughput`).
 *
 *   pnpm bench:throughput [--emails 20000] [--workers 1] [--lane-shards 1] [--no-baselines] [--no-web] [--signed]
 *
 * `--signed` adds `signing` to the result: after the run, the same number of mails twice more, as
 * platform mail (unsigned) and from a verified domain (DKIM-signed, RSA-2048), with the worker's CPU
 * per email of each and their difference, the cost of signing (see lib/throughput/signing.ts).
 *
 * `--workers 2` runs two worker processes (one per core, as a deployment would), sharing the lane.
 *
 * `--lane-shards 3` runs every process with LANE_SHARDS=3 (each lane split into three queues; README,
 * "Sharded lanes"). The campaign is one tenant's, so its jobs all go to one shard: on a single Redis
 * this measures what sharding costs; on a cluster, what one shard of a sharded lane does.
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
import { startBenchRedis } from './lib/redis-server'
import { runThroughput } from './lib/throughput/scenario'

const { values: args } = parseArgs({
  options: {
    emails: { type: 'string', default: '20000' },
    workers: { type: 'string', default: '1' },
    'lane-shards': { type: 'string', default: '1' },
    'no-baselines': { type: 'boolean', default: false },
    'no-web': { type: 'boolean', default: false },
    signed: { type: 'boolean', default: false },
  },
})
const emails = Number(args.emails)
if (!Number.isSafeInteger(emails) || emails < 1) throw new Error('--emails is a positive whole number')
const workers = Number(args.workers)
if (!Number.isSafeInteger(workers) || workers < 1 || workers > 8)
  throw new Error('--workers is a whole number from 1 to 8')
const laneShards = Number(args['lane-shards'])
if (!Number.isSafeInteger(laneShards) || laneShards < 1 || laneShards > 64)
  throw new Error('--lane-shards is a whole number from 1 to 64')
const progress = (line: string) => console.error(`bench:throughput ${line}`)

/** The platform's defaults, except what this job needs (each overridable from the environment). */
const TUNING: Record<string, string> = {
  // The sink keeps the raw run and the platform's run apart by clearing in between; this only makes
  // sure a big run is not cut by its ring buffer.
  MAILSINK_MAX_MESSAGES: String(Math.max(50_000, emails + 1_000)),
}
const overrides = Object.fromEntries(Object.entries(TUNING).filter(([name]) => !process.env[name]))

const redis = await startBenchRedis()
let bench: BenchPlatform | undefined
try {
  bench = await startBenchPlatform(
    'throughput',
    { REDIS_URL: redis.url, LANE_SHARDS: String(laneShards), ...overrides },
    { web: !args['no-web'] },
  )
  if (workers > 1) {
    progress(`starting ${workers - 1} more worker process(es)`)
    await bench.addWorkers(workers - 1)
  }
  const result = await runThroughput(fromBenchPlatform(bench), {
    emails,
    baselines: !args['no-baselines'],
    settleStats: true,
    signed: args.signed,
    log: progress,
  })
  console.log(JSON.stringify({ ...result, workerProcesses: workers, laneShards, overrides }))
} finally {
  await bench?.stop()
  await redis.stop()
}
