import { join } from 'node:path'
import { type Config, ConfigError, databaseDirectUrl, parseConfig } from '@fairlane/config'
import {
  createDatabase,
  databaseNameOf,
  poolerSettings,
  quoteDatabaseName,
  withDatabaseName,
} from '@fairlane/db'
import { ensureDatabaseExists, migrateDatabase } from '@fairlane/db/migrate'
import { createProbeConnection, deleteKeysMatching, redisTarget } from '@fairlane/queue'
import postgres from 'postgres'
import { localDnsEnv, sinkDnsAddress } from './local-dns'
import { answers, type ManagedProcess, startProcess, waitFor } from './processes'
import { type Reaper, startReaper } from './reaper'
import { type LocalSecrets, loadOrCreateSecrets } from './secrets'
import { seedDemo, seedPlatformAdmin } from './seed'
import { ensureSelfSignedCert } from './self-signed-cert'
import { ensureServices, type StopBySignal } from './services'

export type Mode = 'start' | 'dev'

export interface PreparedPlatform {
  env: NodeJS.ProcessEnv
  config: Config
  secrets: LocalSecrets
  stopServices(): Promise<void>
  /** The servers this launch started, for the reaper (see launchPlatform's `reapServers`). */
  stopBySignal: StopBySignal[]
}

/**
 * Everything before the processes start: the environment checked against the one schema, PostgreSQL
 * and Redis made reachable (started locally when needed), the database created and migrated, the
 * demo tenant seeded. Returns the environment the children run with.
 *
 * `fresh` (benchmarks, on a database and queue prefix of their own): drop that database and delete
 * that prefix's Redis keys first, so every run starts from the same empty state instead of
 * delivering what an earlier run left behind.
 */
export async function preparePlatform(
  root: string,
  base: NodeJS.ProcessEnv,
  log: (line: string) => void,
  options: { fresh?: boolean } = {},
) {
  const baseConfig = checkEnvironment(base)
  const services = await ensureServices({
    databaseUrl: base.DATABASE_URL || undefined,
    redisUrl: base.REDIS_URL || undefined,
    redisCluster: baseConfig.REDIS_CLUSTER,
    dataDir: join(root, '.data', 'services'),
    log,
  })
  const secrets = loadOrCreateSecrets(join(root, '.data', 'secrets.json'), base)
  const env: NodeJS.ProcessEnv = {
    ...base,
    ...secrets,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    NEXT_TELEMETRY_DISABLED: '1',
    // Domains published on the sink's DNS server verify (web, worker) and pass its DKIM check (sink).
    ...localDnsEnv(baseConfig),
    // A local platform's webhooks go to receivers on this machine (a dev server, a tunnel's near end):
    // plain http and private addresses allowed, unless the caller says otherwise or runs production.
    WEBHOOK_ALLOW_PRIVATE: base.WEBHOOK_ALLOW_PRIVATE || (base.NODE_ENV === 'production' ? 'false' : 'true'),
    // The sink reports bounces and complaints to the inbound server on the port this launch gives it.
    INBOUND_SMTP_URL:
      base.INBOUND_SMTP_URL || `smtp://${localHost(baseConfig)}:${baseConfig.INBOUND_SMTP_PORT}`,
    // SMTP submission on 2587 (587 needs root), STARTTLS with a self-signed pair made once.
    SUBMISSION_PORT: base.SUBMISSION_PORT || '2587',
    ...submissionTlsEnv(root, base),
  }
  const config = checkEnvironment(env)
  if (options.fresh) await resetState(config, log)
  // Creating the database and migrating (a session advisory lock) need PostgreSQL itself, not a pooler.
  const directUrl = databaseDirectUrl(config)
  const created = await ensureDatabaseExists(directUrl)
  if (created === 'created') log(`created database ${new URL(directUrl).pathname.slice(1)}`)
  await migrateDatabase(directUrl)
  const database = createDatabase(config.DATABASE_URL, {
    max: 2,
    applicationName: 'seed',
    ...poolerSettings(config),
  })
  try {
    await seedDemo(database.db, { apiKey: secrets.DEMO_API_KEY })
    await seedPlatformAdmin(database.db, { password: secrets.DEMO_ADMIN_PASSWORD })
  } finally {
    await database.close()
  }
  return {
    env,
    config,
    secrets,
    stopServices: services.stop,
    stopBySignal: services.stopBySignal,
  } satisfies PreparedPlatform
}

/** The platform's processes as `pnpm start --only` names them. */
export const PLATFORM_PARTS = ['web', 'worker', 'sink', 'inbound', 'submission'] as const
export type PlatformPart = (typeof PLATFORM_PARTS)[number]

/**
 * Starts mail sink, inbound server, worker and web (or the `only` ones); resolves once they answer their health
 * checks. `output` takes their prefixed logs (benchmarks: stderr, so their last stdout line stays
 * the result).
 *
 * It also starts the reaper (reaper.ts), which knows the processes (and `reapServers`, the servers
 * we started) and stops them should this process die without stopping them itself: call the
 * result's `reaper.release()` once everything was stopped in order.
 */
export async function launchPlatform(
  root: string,
  prepared: PreparedPlatform,
  mode: Mode,
  options: {
    output?: NodeJS.WritableStream
    only?: readonly PlatformPart[]
    reapServers?: StopBySignal[]
    /** Added to the worker processes' environment only (`pnpm start --mx`: MX_ALLOW_PRIVATE). */
    workerEnv?: Record<string, string>
    /** Called as soon as they are spawned, before they are ready: a stop may come in between. */
    spawned?: (processes: ManagedProcess[], reaper: Reaper) => void
  } = {},
) {
  const { env, config } = prepared
  const tsx = join(root, 'node_modules', '.bin', 'tsx')
  const watch = mode === 'dev' ? ['watch', '--clear-screen=false'] : []
  const runs = (part: PlatformPart) => !options.only || options.only.includes(part)
  const processes: ManagedProcess[] = [
    runs('sink') &&
      startProcess({
        name: 'sink',
        command: tsx,
        args: [...watch, 'apps/mailsink/src/main.ts'],
        cwd: root,
        // Its bounce and complaint faults report to the inbound server (INBOUND_SMTP_URL, set above).
        env,
        colorIndex: 0,
        output: options.output,
      }),
    runs('inbound') &&
      startProcess({
        name: 'inbound',
        command: tsx,
        args: [...watch, 'apps/inbound/src/main.ts'],
        cwd: root,
        env,
        colorIndex: 4,
        output: options.output,
      }),
    runs('submission') &&
      startProcess({
        name: 'submission',
        command: tsx,
        args: [...watch, 'apps/submission/src/main.ts'],
        cwd: root,
        env,
        colorIndex: 5,
        output: options.output,
      }),
    ...(runs('worker') ? workerLayout(config) : []).map((worker) =>
      startProcess({
        name: worker.name,
        command: tsx,
        args: [...watch, 'apps/worker/src/main.ts'],
        cwd: root,
        env: { ...env, ...worker.env, ...options.workerEnv },
        colorIndex: worker.colorIndex,
        output: options.output,
      }),
    ),
    runs('web') &&
      startProcess({
        name: 'web',
        ...webCommand(root, mode),
        env: { ...env, ...webProcessEnv(env, mode) },
        colorIndex: 2,
        output: options.output,
      }),
  ].filter((managed) => managed !== false)
  const outputs = processes.flatMap(({ child }) => [child.stdout, child.stderr]).filter((s) => s !== null)
  const reaper = startReaper(root, outputs, (line) => options.output?.write(`${line}\n`) ?? console.log(line))
  for (const server of options.reapServers ?? []) reaper.watchServer(server)
  for (const managed of processes) {
    const pid = managed.child.pid
    if (pid === undefined) continue
    reaper.watchGroup(pid, config.SHUTDOWN_FORCE_EXIT_MS)
    void managed.exited.then(() => reaper.forgetGroup(pid))
  }
  options.spawned?.(processes, reaper)
  const host = localHost(config)
  const urls = {
    web: `http://${host}:${config.WEB_PORT}`,
    inbox: `http://${host}:${config.MAILSINK_HTTP_PORT}`,
    metrics: `http://${host}:${config.WORKER_METRICS_PORT}/metrics`,
    smtp: `${host}:${config.MAILSINK_SMTP_PORT}`,
    /** The inbound server: SMTP for return paths, and its health and metrics. */
    inboundSmtp: `${host}:${config.INBOUND_SMTP_PORT}`,
    inboundMetrics: `http://${host}:${config.INBOUND_HTTP_PORT}/metrics`,
    /** SMTP submission (STARTTLS; user: anything, password: an API key). */
    submission: `${host}:${config.SUBMISSION_PORT}`,
    /** The sink's DNS server (UDP). */
    dns: sinkDnsAddress(config),
  }
  const firstExit = Promise.race(processes.map((p) => p.exited.then((code) => ({ name: p.name, code }))))
  const ready = Promise.all([
    runs('sink') && waitFor('mail sink', () => answers(`${urls.inbox}/health`), { timeoutMs: 60_000 }),
    runs('inbound') &&
      waitFor('inbound', () => answers(`http://${host}:${config.INBOUND_HTTP_PORT}/health`), {
        timeoutMs: 60_000,
      }),
    runs('submission') &&
      waitFor('submission', () => answers(`http://${host}:${config.SUBMISSION_HTTP_PORT}/health`), {
        timeoutMs: 60_000,
      }),
    ...(runs('worker') ? workerLayout(config) : []).map((worker) =>
      waitFor(worker.name, () => answers(`http://${host}:${worker.metricsPort}/health`), {
        timeoutMs: 60_000,
      }),
    ),
    runs('web') && waitFor('web', () => answers(`${urls.web}/api/health/ready`), { timeoutMs: 120_000 }),
  ])
  const outcome = await Promise.race([ready.then(() => null), firstExit])
  if (outcome) {
    await stopAll(processes)
    reaper.release()
    throw new Error(`${outcome.name} exited with code ${outcome.code} before the platform was ready`)
  }
  return { processes, urls, firstExit, reaper }
}

/**
 * The web process's one entry (apps/web/src/server/main.ts) in both modes: the route table answers
 * `/api/**`, Next.js everything else. `start`: the production build, run by node itself (no wrapper
 * process) so SIGTERM reaches the server that drains. `dev`: the same entry under `tsx watch` (a change
 * to the API restarts it) with Next.js in dev mode behind it (pages hot reload).
 */
/**
 * What the web process runs with on top of the platform's environment. Next.js serves its production
 * build only with NODE_ENV=production, so `start` sets it on a developer's machine too; the schema
 * refuses WEBHOOK_ALLOW_PRIVATE=true in production, so when the caller did not ask for production and
 * private webhook addresses are on (preparePlatform's local default), this production build says it
 * is a local one. A caller's own NODE_ENV=production gets no such pass, here or in the worker.
 */
export function webProcessEnv(env: NodeJS.ProcessEnv, mode: Mode): Record<string, string> {
  if (mode === 'dev') return { NODE_ENV: 'development' }
  const local = env.NODE_ENV !== 'production' && env.WEBHOOK_ALLOW_PRIVATE === 'true'
  return { NODE_ENV: 'production', ...(local ? { WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION: 'true' } : {}) }
}

function webCommand(root: string, mode: Mode): { command: string; args: string[]; cwd: string } {
  const entry = 'apps/web/src/server/main.ts'
  if (mode === 'dev') {
    return {
      command: join(root, 'node_modules', '.bin', 'tsx'),
      args: ['watch', '--clear-screen=false', entry],
      cwd: root,
    }
  }
  return { command: process.execPath, args: ['--import', 'tsx', entry], cwd: root }
}

/**
 * The worker processes `WORKER_LAYOUT` asks for: one serving every lane, or `worker` for bulk (at
 * nice 10 unless `WORKER_NICE` says otherwise) and `worker-tx` for the transactional lanes (at
 * `WORKER_TX_NICE`, -5: raised where allowed) with its metrics on the next port. Each runs relay,
 * sweeper, pacer (one leader) and schedulers too: all are safe to run in several processes.
 */
export function workerLayout(config: Config): Array<{
  name: 'worker' | 'worker-tx'
  env: Record<string, string>
  metricsPort: number
  colorIndex: number
}> {
  if (config.WORKER_LAYOUT === 'single') {
    return [{ name: 'worker', env: {}, metricsPort: config.WORKER_METRICS_PORT, colorIndex: 1 }]
  }
  return [
    {
      name: 'worker',
      env: { WORKER_LANES: 'bulk', WORKER_NICE: String(config.WORKER_NICE || 10) },
      metricsPort: config.WORKER_METRICS_PORT,
      colorIndex: 1,
    },
    {
      name: 'worker-tx',
      env: {
        WORKER_LANES: 'critical,default',
        WORKER_METRICS_PORT: String(config.WORKER_METRICS_PORT + 1),
        // Above nice 0 where the process may raise itself: the login codes' CPU share.
        WORKER_NICE: String(config.WORKER_TX_NICE),
      },
      metricsPort: config.WORKER_METRICS_PORT + 1,
      colorIndex: 3,
    },
  ]
}

/**
 * Web and submission first (no new mail), then the workers (drain running sends), then the sink they
 * send to, then the inbound server the sink reports bounces to.
 */
export async function stopAll(processes: ManagedProcess[]): Promise<void> {
  for (const name of ['web', 'submission', 'worker-tx', 'worker', 'sink', 'inbound']) {
    const managed = processes.find((p) => p.name === name)
    if (managed) await managed.stop()
  }
}

async function resetState(config: Config, log: (line: string) => void): Promise<void> {
  const name = databaseNameOf(config.DATABASE_URL)
  const admin = postgres(withDatabaseName(databaseDirectUrl(config), 'postgres'), {
    max: 1,
    onnotice: () => {},
  })
  try {
    await admin.unsafe(`drop database if exists ${quoteDatabaseName(name)} with (force)`)
  } finally {
    await admin.end({ timeout: 5 })
  }
  // On a cluster the keys are spread over every master: `deleteKeysMatching` scans each.
  const redis = createProbeConnection(redisTarget(config), 30_000)
  let deleted = 0
  try {
    await redis.connect()
    deleted = await deleteKeysMatching(redis, `${config.QUEUE_PREFIX.replace(/[*?[\]\\]/g, '\\$&')}:*`)
  } finally {
    redis.disconnect()
  }
  log(`fresh state: dropped database ${name}, deleted ${deleted} Redis keys under ${config.QUEUE_PREFIX}:`)
}

/** Where this machine's processes reach one another: HOST, or loopback when HOST binds every address. */
function localHost(config: Pick<Config, 'HOST'>): string {
  return config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
}

function checkEnvironment(env: NodeJS.ProcessEnv): Config {
  try {
    return parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) console.error(`fairlane: invalid environment variable ${problem}`)
      process.exit(1)
    }
    throw error
  }
}

/** The caller's SUBMISSION_TLS_CERT/_KEY, else a self-signed pair under `.data/submission-tls`. */
function submissionTlsEnv(root: string, base: NodeJS.ProcessEnv): Record<string, string> {
  if (base.SUBMISSION_TLS_CERT && base.SUBMISSION_TLS_KEY) return {}
  const { certPath, keyPath } = ensureSelfSignedCert(join(root, '.data', 'submission-tls'), 'localhost')
  return { SUBMISSION_TLS_CERT: certPath, SUBMISSION_TLS_KEY: keyPath }
}
