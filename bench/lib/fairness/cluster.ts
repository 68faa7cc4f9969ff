import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRedisCluster } from '@fairlane/stack/services'
import { redisCommandCalls, redisUsedMemory } from '@fairlane/testing'
import { Cluster, Redis } from 'ioredis'
import { ROOT } from '../platform'
import { type BenchRedis, startBenchRedis } from '../redis-server'

/**
 * The Redis the fairness benchmark runs on: a redis-server of its own, or (`--cluster`) a local
 * three-master Redis Cluster from `startRedisCluster` (@fairlane/stack). The platform gets `env`; the benchmark's own probes `client()`.
 */
export interface FairnessRedis extends BenchRedis {
  kind: 'single-node' | 'cluster'
  env: Record<string, string>
  client(): Redis | Cluster
}

export async function startFairnessRedis(
  cluster: boolean,
  log: (line: string) => void,
): Promise<FairnessRedis> {
  if (!cluster) {
    const redis = await startBenchRedis()
    return {
      ...redis,
      kind: 'single-node',
      env: { REDIS_URL: redis.url },
      client: () => new Redis(redis.url, { maxRetriesPerRequest: null }),
    }
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'fairlane-bench-cluster-'))
  const started = await startRedisCluster({ dataDir, log })
  const admins = started.ports.map((port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }))
  // Commands and memory of the masters (a replica repeats its master's writes).
  const masters = async () => {
    const roles = await Promise.all(admins.map((admin) => admin.info('replication')))
    return admins.filter((_, index) => /role:master/.test(roles[index] ?? ''))
  }
  const sum = async (read: (admin: Redis) => Promise<number>) =>
    (await Promise.all((await masters()).map(read))).reduce((total, value) => total + value, 0)
  const seeds = started.url.split(',').map((seed) => {
    const url = new URL(seed.includes('://') ? seed : `redis://${seed}`)
    return { host: url.hostname, port: Number(url.port || 6379) }
  })
  return {
    kind: 'cluster',
    url: started.url,
    env: { REDIS_URL: started.url, REDIS_CLUSTER: 'true' },
    client: () => new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: null } }),
    commandCalls: () => sum(redisCommandCalls),
    usedMemory: () => sum(redisUsedMemory),
    async stop() {
      for (const admin of admins) admin.disconnect()
      await started.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * `pnpm bench:fairness --cluster …`: the same scenario twice, on a single Redis and on the local
 * cluster, each a run of this benchmark of its own (its own platform, from a fresh state), and
 * their last lines side by side.
 */
export async function runSideBySide(argv: string[], log: (line: string) => void) {
  const rest = argv.filter((arg) => arg !== '--cluster')
  log('side by side: the single-node run first')
  const singleNode = await runFairnessChild(rest)
  log('side by side: the cluster run')
  const cluster = await runFairnessChild([...rest, '--on-cluster'])
  const holds = (figures: Record<string, unknown>) =>
    figures.rateViolations === 0 && typeof figures.jainIndex === 'number' && figures.jainIndex >= 0.95
  return {
    mode: 'side-by-side',
    singleNode,
    cluster,
    planHolds: { singleNode: holds(singleNode), cluster: holds(cluster) },
  }
}

async function runFairnessChild(args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bench/fairness.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const code = await new Promise<number>((resolve) => child.on('exit', (exit) => resolve(exit ?? 1)))
  const last = stdout.trim().split('\n').at(-1) ?? ''
  if (code !== 0) throw new Error(`bench/fairness.ts ${args.join(' ')} exited with ${code}`)
  return JSON.parse(last) as Record<string, unknown>
}
