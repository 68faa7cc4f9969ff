import { fileURLToPath } from 'node:url'
import { launchPlatform, preparePlatform, runToEnd, stopAll, webBuildIsStale } from '@fairlane/stack'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface BenchPlatform {
  webUrl: string
  inboxUrl: string
  metricsUrl: string
  apiKey: string
  adminToken: string
  redisUrl: string
  databaseUrl: string
  smtpPort: number
  queuePrefix: string
  /** Process name (web, worker, sink) → pid of its process group leader, for CPU accounting. */
  processGroups: Record<string, number>
  /** Stops one process (e.g. the worker, so a baseline runs without it), leaving the others up. */
  stopProcess(name: 'web' | 'worker' | 'sink'): Promise<void>
  stop(): Promise<void>
}

/** Each benchmark its own ports, so two can run side by side (while developing; never when measuring). */
const PORT_OFFSETS: Record<string, number> = { otp: 0, throughput: 10, fairness: 20, chaos: 30 }

/**
 * The whole platform on ports and a database of the benchmark's own (for `otp`: web 3200, sink
 * 2725/8225, metrics 9664; the others shifted by their offset), started the way `pnpm start` does,
 * so a benchmark measures the real processes. The database `fairlane_bench_<name>` and the Redis
 * keys under `fairlane-bench-<name>:` are emptied at every start.
 */
export async function startBenchPlatform(
  name: string,
  overrides: Record<string, string> = {},
): Promise<BenchPlatform> {
  const log = (line: string) => console.error(`bench: ${line}`)
  const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
  databaseUrl.pathname = `/fairlane_bench_${name}`
  const offset = PORT_OFFSETS[name] ?? 40
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    WEB_PORT: String(3200 + offset),
    MAILSINK_SMTP_PORT: String(2725 + offset),
    MAILSINK_HTTP_PORT: String(8225 + offset),
    WORKER_METRICS_PORT: String(9664 + offset),
    SMTP_URL: `smtp://127.0.0.1:${2725 + offset}`,
    APP_URL: `http://127.0.0.1:${3200 + offset}`,
    QUEUE_PREFIX: `fairlane-bench-${name}`,
    LOG_LEVEL: 'warn',
    ...overrides,
  }
  // Its own database and queue prefix, emptied first: every run starts from the same state instead
  // of delivering what an earlier (interrupted) run left queued.
  const prepared = await preparePlatform(ROOT, env, log, { fresh: true })
  if (webBuildIsStale(ROOT)) {
    log('building the web app')
    const code = await runToEnd('pnpm', ['--filter', '@fairlane/web', 'build'], {
      cwd: ROOT,
      env: prepared.env,
    })
    if (code !== 0) throw new Error(`next build failed (${code})`)
  }
  const platform = await launchPlatform(ROOT, prepared, 'start', { output: process.stderr })
  return {
    webUrl: platform.urls.web,
    inboxUrl: platform.urls.inbox,
    metricsUrl: platform.urls.metrics,
    apiKey: prepared.secrets.DEMO_API_KEY,
    adminToken: prepared.secrets.ADMIN_TOKEN,
    redisUrl: prepared.config.REDIS_URL,
    databaseUrl: prepared.config.DATABASE_URL,
    smtpPort: prepared.config.MAILSINK_SMTP_PORT,
    queuePrefix: prepared.config.QUEUE_PREFIX,
    processGroups: Object.fromEntries(
      platform.processes.flatMap((p) => (p.child.pid === undefined ? [] : [[p.name, p.child.pid]])),
    ),
    async stopProcess(name) {
      await platform.processes.find((managed) => managed.name === name)?.stop()
    },
    async stop() {
      await stopAll(platform.processes)
      await prepared.stopServices()
    },
  }
}
