import { join } from 'node:path'
import { type Config, ConfigError, parseConfig } from '@fairlane/config'
import { createDatabase } from '@fairlane/db'
import { ensureDatabaseExists, migrateDatabase } from '@fairlane/db/migrate'
import { answers, type ManagedProcess, startProcess, waitFor } from './processes'
import { type LocalSecrets, loadOrCreateSecrets } from './secrets'
import { seedDemo } from './seed'
import { ensureServices } from './services'

export type Mode = 'start' | 'dev'

export interface PreparedPlatform {
  env: NodeJS.ProcessEnv
  config: Config
  secrets: LocalSecrets
  stopServices(): Promise<void>
}

/**
 * Everything before the processes start: the environment checked against the one schema, PostgreSQL
 * and Redis made reachable (started locally when needed), the database created and migrated, the
 * demo tenant seeded. Returns the environment the children run with.
 */
export async function preparePlatform(root: string, base: NodeJS.ProcessEnv, log: (line: string) => void) {
  checkEnvironment(base)
  const services = await ensureServices({
    databaseUrl: base.DATABASE_URL || undefined,
    redisUrl: base.REDIS_URL || undefined,
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
  }
  const config = checkEnvironment(env)
  const created = await ensureDatabaseExists(config.DATABASE_URL)
  if (created === 'created') log(`created database ${new URL(config.DATABASE_URL).pathname.slice(1)}`)
  await migrateDatabase(config.DATABASE_URL)
  const database = createDatabase(config.DATABASE_URL, { max: 2, applicationName: 'seed' })
  try {
    await seedDemo(database.db, { apiKey: secrets.DEMO_API_KEY })
  } finally {
    await database.close()
  }
  return { env, config, secrets, stopServices: services.stop } satisfies PreparedPlatform
}

/** Starts mail sink, worker and web; resolves once all three answer their health checks. */
export async function launchPlatform(
  root: string,
  prepared: PreparedPlatform,
  mode: Mode,
  options: { output?: NodeJS.WritableStream } = {},
) {
  const { env, config } = prepared
  const tsx = join(root, 'node_modules', '.bin', 'tsx')
  const next = join(root, 'apps', 'web', 'node_modules', '.bin', 'next')
  const watch = mode === 'dev' ? ['watch', '--clear-screen=false'] : []
  const processes: ManagedProcess[] = [
    startProcess({
      name: 'sink',
      command: tsx,
      args: [...watch, 'apps/mailsink/src/main.ts'],
      cwd: root,
      env,
      colorIndex: 0,
    }),
    startProcess({
      name: 'worker',
      command: tsx,
      args: [...watch, 'apps/worker/src/main.ts'],
      cwd: root,
      env,
      colorIndex: 1,
    }),
    startProcess({
      name: 'web',
      command: next,
      args: [mode === 'dev' ? 'dev' : 'start', '--port', String(config.WEB_PORT), '--hostname', config.HOST],
      cwd: join(root, 'apps', 'web'),
      env,
      colorIndex: 2,
      output: options.output,
    }),
  ]
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
  const urls = {
    web: `http://${host}:${config.WEB_PORT}`,
    inbox: `http://${host}:${config.MAILSINK_HTTP_PORT}`,
    metrics: `http://${host}:${config.WORKER_METRICS_PORT}/metrics`,
    smtp: `${host}:${config.MAILSINK_SMTP_PORT}`,
  }
  const firstExit = Promise.race(processes.map((p) => p.exited.then((code) => ({ name: p.name, code }))))
  const ready = Promise.all([
    waitFor('mail sink', () => answers(`${urls.inbox}/health`), { timeoutMs: 60_000 }),
    waitFor('worker', () => answers(`http://${host}:${config.WORKER_METRICS_PORT}/health`), {
      timeoutMs: 60_000,
    }),
    waitFor('web', () => answers(`${urls.web}/api/health/ready`), { timeoutMs: 120_000 }),
  ])
  const outcome = await Promise.race([ready.then(() => null), firstExit])
  if (outcome) {
    await stopAll(processes)
    throw new Error(`${outcome.name} exited with code ${outcome.code} before the platform was ready`)
  }
  return { processes, urls, firstExit }
}

/** Web first (no new requests), then the worker (drains running sends), then the sink they send to. */
export async function stopAll(processes: ManagedProcess[]): Promise<void> {
  for (const name of ['web', 'worker', 'sink']) {
    const managed = processes.find((p) => p.name === name)
    if (managed) await managed.stop()
  }
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
