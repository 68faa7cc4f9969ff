/**
 * Chaos, through the real processes (web, worker, sink) on a Redis of the benchmark's own (it gets
 * flushed): a campaign and API mail (8,000 + 2,000 by default); at 40% delivered the worker's process
 * group gets SIGKILL and a new worker starts; at 65% the queue Redis is flushed (FLUSHALL); at 80%
 * the sink answers 451 for 10 s. Then every message must end: counted at the sink by Message-ID,
 * and by status in PostgreSQL. Progress on stderr; the last stdout line is one JSON object (see
 * `runChaos`, whose `definitions` field says what each count means).
 *
 *   pnpm bench:chaos [--campaign 8000] [--api 2000] [--kill-at 40] [--flush-at 65] [--fault-at 80]
 *                    [--fault-seconds 10] [--no-web] [--name chaos]
 *
 * `--name` names the bench's database and ports as in throughput (`fairlane_bench_<name>`; a name of
 * one's own takes BENCH_PORT_OFFSET), so two runs do not collide.
 *
 * `--no-web` runs sink and worker only and writes the campaign and the API mail into the database
 * the way the APIs do. Recovery settings the benchmark gives the platform unless the environment
 * sets them (reported under `overrides`): see RECOVERY below.
 */
import { parseArgs } from 'node:util'
import { flushAllNodes } from '@fairlane/queue'
import { connectTestRedis } from '@fairlane/testing'
import { runChaos } from './lib/chaos/scenario'
import { fromBenchPlatform } from './lib/delivery-platform'
import { type BenchPlatform, startBenchPlatform } from './lib/platform'
import { startBenchRedis } from './lib/redis-server'

const { values: args } = parseArgs({
  options: {
    campaign: { type: 'string', default: '8000' },
    api: { type: 'string', default: '2000' },
    'kill-at': { type: 'string', default: '40' },
    'flush-at': { type: 'string', default: '65' },
    'fault-at': { type: 'string', default: '80' },
    'fault-seconds': { type: 'string', default: '10' },
    'no-web': { type: 'boolean', default: false },
    name: { type: 'string', default: 'chaos' },
  },
})
const progress = (line: string) => console.error(`bench:chaos ${line}`)

/**
 * With the production defaults a killed worker's jobs come back after 30 s and its send claims
 * after 60 s: correct, but most of a run would be waiting. These keep recovery within seconds and
 * still satisfy the config's own rule (SEND_LOCK_MS ≥ 3 × SMTP_TIMEOUT_MS). Errors only in the log:
 * the 451 phase makes every retry a warning.
 */
const RECOVERY: Record<string, string> = {
  JOB_LOCK_MS: '5000',
  STALLED_INTERVAL_MS: '2000',
  SEND_LOCK_MS: '15000',
  SMTP_TIMEOUT_MS: '5000',
  LOG_LEVEL: 'error',
}
const overrides = Object.fromEntries(Object.entries(RECOVERY).filter(([name]) => !process.env[name]))

const redis = await startBenchRedis()
const admin = connectTestRedis({ redisUrl: redis.url, redisCluster: false })
let bench: BenchPlatform | undefined
try {
  bench = await startBenchPlatform(
    args.name,
    { REDIS_URL: redis.url, ...overrides },
    { web: !args['no-web'] },
  )
  const result = await runChaos(fromBenchPlatform(bench), {
    campaign: Number(args.campaign),
    api: Number(args.api),
    killAtPercent: Number(args['kill-at']),
    flushAtPercent: Number(args['flush-at']),
    faultAtPercent: Number(args['fault-at']),
    faultMs: Number(args['fault-seconds']) * 1000,
    // This Redis was started above for this run alone: nothing else lives in it.
    flushQueueRedis: () => flushAllNodes(admin),
    timeoutMs: 10 * 60_000,
    log: progress,
  })
  console.log(JSON.stringify({ ...result, overrides }))
} finally {
  admin.disconnect()
  await bench?.stop()
  await redis.stop()
}
