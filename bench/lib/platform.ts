import { fileURLToPath } from 'node:url'
import type { Config } from '@fairlane/config'
import {
  launchPlatform,
  type ManagedProcess,
  preparePlatform,
  runToEnd,
  signalGroup,
  startSourceProcess,
  stopAll,
  webBuildIsStale,
  workerLayout,
} from '@fairlane/stack'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface BenchPlatform {
  /** False when started with `{ web: false }`: then nothing answers at `webUrl`. */
  web: boolean
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
  stopProcess(name: 'web' | 'worker' | 'worker-tx' | 'sink'): Promise<void>
  /** The settings every process runs with, parsed. */
  config: Config
  /** The environment every process runs with, for a benchmark that starts more of them (many-processes.ts). */
  env: NodeJS.ProcessEnv
  /** SIGKILL to the worker's whole process group (tsx and the node it runs); resolves once it is gone. */
  killWorker(): Promise<void>
  /** SIGKILL to the process group of one of the launched processes by name (`worker-tx`…); resolves once it is gone. */
  killProcess(name: string): Promise<void>
  /** A new worker with the same environment, in place of the old one; resolves once it answers /health. */
  startWorker(): Promise<void>
  /**
   * `count` more worker processes with the same settings (their metrics on the next ports), as a
   * deployment runs one per core; named worker2, worker3… in `processGroups`.
   */
  addWorkers(count: number): Promise<void>
  stop(): Promise<void>
}

/** Each benchmark its own ports, so two can run side by side (while developing; never when measuring). */
const PORT_OFFSETS: Record<string, number> = {
  otp: 0,
  throughput: 10,
  fairness: 20,
  chaos: 30,
  webhooks: 50,
  submission: 80,
  // The many-process runs (more web and worker ports above their own): lib/many-processes.ts.
  throughput_procs: 60,
  fairness_procs: 70,
  // `bench:fairness --tenants`: its own database too, so a run beside the ordinary one clobbers neither.
  fairness_tenants: 90,
}

/**
 * The whole platform on ports and a database of the benchmark's own (for `otp`: web 3200, sink
 * 2725/8225, metrics 9664; the others shifted by their offset), started the way `pnpm start` does,
 * so a benchmark measures the real processes. The database `fairlane_bench_<name>` and the Redis
 * keys under `fairlane-bench-<name>:` are emptied at every start. `{ web: false }`: sink and worker
 * only, for a benchmark that seeds through the database and must not wait for (or start) a web build.
 */
export async function startBenchPlatform(
  name: string,
  overrides: Record<string, string> = {},
  /** `output`: where the processes' prefixed logs go (stderr unless a benchmark reads them). */
  options: {
    web?: boolean
    output?: NodeJS.WritableStream
    /**
     * Without the web app: the worker processes `WORKER_LAYOUT` asks for, as `pnpm start` runs them
     * (split: `worker` for bulk, `worker-tx` leading the pacer). Default: one worker with every lane.
     */
    workerLayout?: boolean
  } = {},
): Promise<BenchPlatform> {
  const web = options.web ?? true
  const output = options.output ?? process.stderr
  const log = (line: string) => console.error(`bench: ${line}`)
  const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
  databaseUrl.pathname = `/fairlane_bench_${name}`
  // Behind a pooler (DATABASE_DIRECT_URL set): the same bench database, reached directly.
  const directUrl = process.env.DATABASE_DIRECT_URL ? new URL(process.env.DATABASE_DIRECT_URL) : undefined
  if (directUrl) directUrl.pathname = databaseUrl.pathname
  // BENCH_PORT_OFFSET: a name of one's own (`--name`) on ports of one's own, so two people measuring
  // side by side on one machine do not collide on the default 40.
  const offset = PORT_OFFSETS[name] ?? Number(process.env.BENCH_PORT_OFFSET ?? 40)
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    ...(directUrl ? { DATABASE_DIRECT_URL: directUrl.toString() } : {}),
    WEB_PORT: String(3200 + offset),
    MAILSINK_SMTP_PORT: String(2725 + offset),
    MAILSINK_HTTP_PORT: String(8225 + offset),
    WORKER_METRICS_PORT: String(9664 + offset),
    INBOUND_SMTP_PORT: String(2925 + offset),
    INBOUND_HTTP_PORT: String(9864 + offset),
    SUBMISSION_PORT: String(3025 + offset),
    SUBMISSION_HTTP_PORT: String(9964 + offset),
    SMTP_URL: `smtp://127.0.0.1:${2725 + offset}`,
    APP_URL: `http://127.0.0.1:${3200 + offset}`,
    QUEUE_PREFIX: `fairlane-bench-${name}`,
    LOG_LEVEL: 'warn',
    ...overrides,
  }
  // Its own database and queue prefix, emptied first: every run starts from the same state instead
  // of delivering what an earlier (interrupted) run left queued.
  const prepared = await preparePlatform(ROOT, env, log, { fresh: true })
  if (web && webBuildIsStale(ROOT)) {
    log('building the web app')
    const code = await runToEnd('pnpm', ['--filter', '@fairlane/web', 'build'], {
      cwd: ROOT,
      env: prepared.env,
      // The benchmark's stdout is its JSON result alone.
      output: 'stderr',
    })
    if (code !== 0) throw new Error(`next build failed (${code})`)
  }
  const platform = web
    ? await launchPlatform(ROOT, prepared, 'start', { output })
    : await launchWithoutWeb(prepared.env, prepared.config, output, { workerLayout: options.workerLayout })
  const extraWorkers: ManagedProcess[] = []
  const processGroups: Record<string, number> = Object.fromEntries(
    platform.processes.flatMap((p) => (p.child.pid === undefined ? [] : [[p.name, p.child.pid]])),
  )
  return {
    web,
    webUrl: platform.urls.web,
    inboxUrl: platform.urls.inbox,
    metricsUrl: platform.urls.metrics,
    apiKey: prepared.secrets.DEMO_API_KEY,
    adminToken: prepared.secrets.ADMIN_TOKEN,
    redisUrl: prepared.config.REDIS_URL,
    databaseUrl: prepared.config.DATABASE_URL,
    smtpPort: prepared.config.MAILSINK_SMTP_PORT,
    queuePrefix: prepared.config.QUEUE_PREFIX,
    processGroups,
    async stopProcess(name) {
      await platform.processes.find((managed) => managed.name === name)?.stop()
    },
    config: prepared.config,
    env: prepared.env,
    async killWorker() {
      const worker = platform.processes.find((managed) => managed.name === 'worker')
      if (worker) await signalGroup(worker, 'SIGKILL')
    },
    async killProcess(name) {
      const managed = platform.processes.find((candidate) => candidate.name === name)
      if (!managed) throw new Error(`no process named ${name} to kill`)
      await signalGroup(managed, 'SIGKILL')
    },
    async startWorker() {
      const worker = await startSourceProcess(ROOT, 'worker', prepared.env, { output })
      const index = platform.processes.findIndex((managed) => managed.name === 'worker')
      if (index === -1) platform.processes.push(worker)
      else platform.processes[index] = worker
      if (worker.child.pid !== undefined) processGroups.worker = worker.child.pid
    },
    async addWorkers(count) {
      for (let index = 2; index <= count + 1; index++) {
        const name = `worker${index}`
        const worker = await startSourceProcess(
          ROOT,
          'worker',
          { ...prepared.env, WORKER_METRICS_PORT: String(prepared.config.WORKER_METRICS_PORT + index - 1) },
          { output },
        )
        extraWorkers.push(worker)
        if (worker.child.pid !== undefined) processGroups[name] = worker.child.pid
      }
    },
    async stop() {
      // Extra workers first: stopAll stops one process per name, and theirs is `worker` too.
      await Promise.all(extraWorkers.map((worker) => worker.stop()))
      await stopAll(platform.processes)
      await prepared.stopServices()
    },
  }
}

/**
 * Sink and worker (`launchPlatform` without the web), with the URLs `launchPlatform` would give.
 * Side by side: the worker boots on PostgreSQL and Redis alone (its SMTP pool connects lazily).
 */
export async function launchWithoutWeb(
  env: NodeJS.ProcessEnv,
  config: Config,
  output: NodeJS.WritableStream = process.stderr,
  options: { workerLayout?: boolean | undefined } = {},
) {
  const workers = options.workerLayout
    ? workerLayout(config).map((worker) =>
        startSourceProcess(ROOT, 'worker', { ...env, ...worker.env }, { output, label: worker.name }),
      )
    : [startSourceProcess(ROOT, 'worker', env, { output })]
  const started = await Promise.allSettled([startSourceProcess(ROOT, 'sink', env, { output }), ...workers])
  const processes: ManagedProcess[] = []
  for (const result of started) if (result.status === 'fulfilled') processes.push(result.value)
  const failed = started.find((result) => result.status === 'rejected')
  if (failed) {
    for (const managed of processes) await signalGroup(managed, 'SIGKILL')
    throw failed.reason
  }
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
  return {
    processes,
    urls: {
      web: `http://${host}:${config.WEB_PORT}`,
      inbox: `http://${host}:${config.MAILSINK_HTTP_PORT}`,
      metrics: `http://${host}:${config.WORKER_METRICS_PORT}/metrics`,
    },
  }
}
