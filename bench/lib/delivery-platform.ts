import { createServer } from 'node:net'
import { Writable } from 'node:stream'
import { type Config, mailDomain, parseConfig } from '@fairlane/config'
import { DEMO_TENANT_ID, type ManagedProcess, signalGroup, startSourceProcess } from '@fairlane/stack'
import postgres from 'postgres'
import { type BenchPlatform, launchWithoutWeb, ROOT } from './platform'

/**
 * What the throughput and chaos scenarios drive: a worker and a mail sink as processes, PostgreSQL
 * and Redis, and the web app when it runs. The CLIs get one from `startBenchPlatform` (everything,
 * web included, seeding through the public and admin APIs); integration tests from
 * `startDeliveryProcesses` (sink and worker only, seeding through the database: no web build, and
 * seconds instead of a minute to start).
 */
export interface DeliveryPlatform {
  databaseUrl: string
  redisUrl: string
  queuePrefix: string
  inboxUrl: string
  smtpPort: number
  /** The worker's settings, parsed from the environment it runs with. */
  config: Config
  /** The Message-ID of message `id` is `<id@mailDomain>`. */
  mailDomain: string
  /** The tenant the scenario sends as: the seeded demo tenant. */
  tenantId: string
  /** Present when the web app runs: plans, campaigns and API mail then go through its APIs. */
  api?: { webUrl: string; apiKey: string; adminToken: string }
  /** Process name → pid of its group leader, for CPU accounting; follows a replaced worker. */
  processGroups: Record<string, number>
  /** SIGKILL to the worker's whole process group; resolves once it is gone. */
  killWorker(): Promise<void>
  /** A new worker process with the same environment; resolves once it answers /health. */
  startWorker(): Promise<void>
  stop(): Promise<void>
}

/** The platform as the CLIs start it (`startBenchPlatform`): seeding goes through its APIs when the web runs. */
export function fromBenchPlatform(bench: BenchPlatform): DeliveryPlatform {
  return {
    databaseUrl: bench.databaseUrl,
    redisUrl: bench.redisUrl,
    queuePrefix: bench.queuePrefix,
    inboxUrl: bench.inboxUrl,
    smtpPort: bench.smtpPort,
    config: bench.config,
    mailDomain: mailDomain(bench.config),
    tenantId: DEMO_TENANT_ID,
    ...(bench.web
      ? { api: { webUrl: bench.webUrl, apiKey: bench.apiKey, adminToken: bench.adminToken } }
      : {}),
    processGroups: bench.processGroups,
    killWorker: () => bench.killWorker(),
    startWorker: () => bench.startWorker(),
    stop: () => bench.stop(),
  }
}

export interface DeliveryProcessesOptions {
  databaseUrl: string
  redisUrl: string
  queuePrefix: string
  /** Environment settings on top of the defaults below (concurrency, lock times…). */
  env?: Record<string, string>
  /** Where the processes' logs go; by default nowhere (pass process.stderr while debugging). */
  output?: NodeJS.WritableStream
}

/**
 * The mail sink and one worker as processes on free ports, on a database that is already migrated
 * (an integration test's clone), with the demo tenant inserted. No web: seed through the database.
 */
export async function startDeliveryProcesses(options: DeliveryProcessesOptions): Promise<DeliveryPlatform> {
  const [smtpPort, httpPort, metricsPort] = await freePorts(3)
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: options.queuePrefix,
    MAILSINK_SMTP_PORT: String(smtpPort),
    MAILSINK_HTTP_PORT: String(httpPort),
    WORKER_METRICS_PORT: String(metricsPort),
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    APP_URL: 'http://127.0.0.1:3999',
    MAIL_DOMAIN: 'fairlane.test',
    ...options.env,
  }
  const config = parseConfig(env)
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} })
  try {
    await sql`insert into tenants (id, name) values (${DEMO_TENANT_ID}, 'Demo Shop') on conflict (id) do nothing`
  } finally {
    await sql.end({ timeout: 5 })
  }
  const output = options.output ?? discard()
  const launched = await launchWithoutWeb(env, config, output)
  const sink = launched.processes.find((managed) => managed.name === 'sink') as ManagedProcess
  let worker = launched.processes.find((managed) => managed.name === 'worker') as ManagedProcess
  const processGroups: Record<string, number> = {}
  const track = (managed: ManagedProcess) => {
    if (managed.child.pid !== undefined) processGroups[managed.name] = managed.child.pid
  }
  track(sink)
  track(worker)
  return {
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    queuePrefix: options.queuePrefix,
    inboxUrl: launched.urls.inbox,
    smtpPort: smtpPort as number,
    config,
    mailDomain: mailDomain(config),
    tenantId: DEMO_TENANT_ID,
    processGroups,
    async killWorker() {
      await signalGroup(worker, 'SIGKILL')
    },
    async startWorker() {
      worker = await startSourceProcess(ROOT, 'worker', env, { output })
      track(worker)
    },
    async stop() {
      // As the launcher stops them (SIGTERM, which tsx passes on): running sends finish; a stuck
      // process is cut off.
      for (const managed of [worker, sink]) {
        const timer = setTimeout(() => void signalGroup(managed, 'SIGKILL'), 20_000)
        await managed.stop()
        clearTimeout(timer)
      }
    },
  }
}

function discard(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _encoding, callback) => callback() })
}

/** Ports the OS says are free now (all bound at once, so they differ), then released. */
export function freePorts(count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, () => {
      const server = createServer()
      return new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', () => resolve(server))
      })
    }),
  ).then(async (servers) => {
    const ports = servers.map((server) => {
      const address = server.address()
      return typeof address === 'object' && address ? address.port : 0
    })
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
    return ports
  })
}
