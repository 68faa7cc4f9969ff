import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { ensurePostgresBinaries, findOnPath, type PostgresBinaries } from './binaries'
import {
  asPostgresUser,
  errorMessage,
  hostPort,
  isLoopback,
  isRoot,
  portInUse,
  portOf,
  run,
  sbin,
  tail,
  waitFor,
} from './process'
import type { EnsuredService, Probe } from './types'

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/fairlane'
/** Where the project-local server listens when no DATABASE_URL was given and 5432 has no server. */
export const LOCAL_POSTGRES_PORT = 54329
const START_TIMEOUT_MS = 30_000

/**
 * Asks the server behind `url` for `select 1`. It connects to the `postgres` maintenance database
 * because the URL's own database may not exist yet (creating it is the migrator's job).
 */
export async function probePostgres(url: string, timeoutSeconds = 3): Promise<Probe> {
  const maintenance = new URL(url)
  maintenance.pathname = '/postgres'
  const sql = postgres(maintenance.toString(), {
    max: 1,
    connect_timeout: timeoutSeconds,
    idle_timeout: 1,
    // No array-type lookup after connecting: `select 1` needs none, and when the server stops
    // between the two (the reaper test stops it while this polls) postgres.js rejects that lookup
    // outside the query's promise, an unhandled ECONNRESET (seen once in CI).
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'fairlane-stack-probe' },
  })
  try {
    await sql`select 1`
    return { state: 'up' }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    // A SQLSTATE means a PostgreSQL server answered; anything else (ECONNREFUSED, CONNECT_TIMEOUT…) means none did.
    if ((error as { severity?: unknown }).severity === undefined)
      return { state: 'down', reason: errorMessage(error) }
    if (code === '57P03') return { state: 'starting', reason: errorMessage(error) }
    if (code === '3D000') return { state: 'up' } // no `postgres` database, but the server is there
    return { state: 'rejected', reason: errorMessage(error) }
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {})
  }
}

/** Resolves `starting` (crash recovery, a server we or a previous run just launched) into up or down. */
async function settle(url: string, probe: Probe): Promise<Probe> {
  if (probe.state !== 'starting') return probe
  let last: Probe = probe
  await waitFor(
    async () => {
      last = await probePostgres(url, 1)
      return last.state !== 'starting'
    },
    { what: `PostgreSQL at ${hostPort(new URL(url), 5432)} to finish starting`, timeoutMs: START_TIMEOUT_MS },
  )
  return last
}

const used = (url: string): EnsuredService => ({ url, started: null, stop: async () => {} })

/**
 * Makes sure a PostgreSQL server answers: the given URL's, else (on loopback only) a project-local one
 * started from the installed binaries on that URL's port, with its data under `<dataDir>/postgres`.
 */
export async function ensurePostgres(options: {
  url?: string
  dataDir: string
  log: (line: string) => void
}): Promise<EnsuredService> {
  const { dataDir, log } = options
  const url = options.url ?? DEFAULT_DATABASE_URL
  const target = new URL(url)
  const where = hostPort(target, 5432)
  const probe = await settle(url, await probePostgres(url))
  if (probe.state === 'up') {
    log(`postgres: using ${where}`)
    return used(url)
  }

  if (options.url !== undefined) {
    if (probe.state === 'rejected') {
      throw new Error(
        `PostgreSQL at ${where} (DATABASE_URL) answered but refused the connection: ${probe.reason}`,
      )
    }
    if (!isLoopback(target.hostname)) {
      throw new Error(
        `PostgreSQL at ${where} (DATABASE_URL) does not answer (${probe.reason}). ` +
          'Start that server, or set DATABASE_URL to one that is running.',
      )
    }
    log(`postgres: ${where} does not answer (${probe.reason}); starting a project-local server on that port`)
    return startLocalPostgres(url, dataDir, log)
  }

  // No DATABASE_URL: the machine's server was only a guess, so fall back to our own port whatever went wrong.
  const localUrl = new URL(url)
  localUrl.port = String(LOCAL_POSTGRES_PORT)
  const local = localUrl.toString()
  const previous = await settle(local, await probePostgres(local))
  if (previous.state === 'up') {
    log(
      `postgres: ${where} does not answer (${probe.reason}); using 127.0.0.1:${LOCAL_POSTGRES_PORT} (already running)`,
    )
    return used(local)
  }
  if (previous.state === 'rejected') {
    throw new Error(
      `PostgreSQL at 127.0.0.1:${LOCAL_POSTGRES_PORT} answered but refused the connection: ${previous.reason}`,
    )
  }
  log(
    `postgres: ${where} does not answer (${probe.reason}); starting a project-local server on ${LOCAL_POSTGRES_PORT}`,
  )
  return startLocalPostgres(local, dataDir, log)
}

async function startLocalPostgres(
  url: string,
  dataDir: string,
  log: (line: string) => void,
): Promise<EnsuredService> {
  const target = new URL(url)
  const port = portOf(target, 5432)
  const where = hostPort(target, 5432)
  if (await portInUse(target.hostname, port)) {
    throw new Error(
      `PostgreSQL does not answer on ${where}, but something else listens there: free the port or use another one.`,
    )
  }
  const bins = await ensurePostgresBinaries(`PostgreSQL does not answer on ${where}`, log)
  const pgDir = join(dataDir, 'postgres')
  const socketDir = join(dataDir, 'pg-socket')
  const logPath = join(dataDir, 'postgres.log')

  await mkdir(dataDir, { recursive: true })
  for (const dir of [pgDir, socketDir]) await mkdir(dir, { recursive: true, mode: 0o700 })
  if (isRoot()) await handOverToPostgresUser(dataDir, [pgDir, socketDir])
  await initdbOnce(bins, pgDir, dataDir, log)

  // A Unix socket path longer than 107 bytes makes PostgreSQL refuse to start; we only need TCP anyway.
  const socketPath = join(socketDir, `.s.PGSQL.${port}`)
  const sockets = Buffer.byteLength(socketPath) <= 100 ? socketDir : ''
  const args = ['-D', pgDir, '-p', String(port), '-k', sockets]
  args.push('-c', `listen_addresses=${listenAddress(target.hostname)}`, '-c', 'fsync=off')
  const [command, commandArgs] = asPostgresUser(bins.postgres, args)

  const logOffset = existsSync(logPath) ? (await stat(logPath)).size : 0
  const logFd = openSync(logPath, 'a')
  const startedAt = Date.now()
  // Detached (its own process group: a Ctrl-C in our terminal does not reach it) and unreferenced (we may
  // exit while it runs): it stops through stop(), or keeps serving and the next run simply uses it.
  const child = spawn(command, commandArgs, { cwd: dataDir, detached: true, stdio: ['ignore', logFd, logFd] })
  closeSync(logFd)
  child.unref()
  let exited: string | null = null
  child.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`
  })
  child.once('error', (error) => {
    exited = `could not start: ${error.message}`
  })

  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`postgres ${exited}`)
        // As the `postgres` superuser: the URL's own user may not exist until ensureRole below.
        return (await probePostgres(superuserUrl(url), 1)).state === 'up'
      },
      { what: `PostgreSQL on ${where}`, timeoutMs: START_TIMEOUT_MS },
    )
  } catch (error) {
    if (!exited) child.kill('SIGTERM')
    const logTail = await tail(logPath, 20, logOffset)
    throw new Error(`Could not start PostgreSQL on ${where}: ${errorMessage(error)}\n${logPath}:\n${logTail}`)
  }
  log(
    `postgres: started on ${where} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (data ${pgDir}, log ${logPath})`,
  )
  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      const [ctl, ctlArgs] = asPostgresUser(bins.pgCtl, ['-D', pgDir, '-m', 'fast', '-w', '-t', '30', 'stop'])
      try {
        await run(ctl, ctlArgs, { cwd: dataDir })
        log(`postgres: stopped ${where}`)
      } catch (error) {
        // Someone else stopped it already: the goal of stop() holds.
        if (!/Is server running\?/.test(errorMessage(error))) throw error
      }
    })()
    return stopping
  }
  try {
    await ensureRole(url)
  } catch (error) {
    await stop().catch(() => {})
    throw new Error(
      `PostgreSQL on ${where} started, but creating the URL's user failed: ${errorMessage(error)}`,
    )
  }
  // SIGINT is PostgreSQL's fast shutdown: clients disconnected, a clean checkpoint, no recovery next time.
  const stopBySignal = {
    name: `postgres:${port}`,
    pidFile: join(pgDir, 'postmaster.pid'),
    signal: 'SIGINT',
  } as const
  return { url, started: `postgres:${port}`, stop, stopBySignal }
}

function listenAddress(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' ? 'localhost' : host // 127.x.y.z or ::1, exactly what the URL asks for
}

/**
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user: it
 * must own its directories and be able to walk into the data folder (mkdtemp makes it 0700).
 */
async function handOverToPostgresUser(dataDir: string, dirs: string[]): Promise<void> {
  const uid = await postgresUid()
  const { mode } = await stat(dataDir)
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o7777) | 0o011)
  for (const dir of dirs) {
    if ((await stat(dir)).uid !== uid) await run('chown', ['-R', 'postgres:', dir])
  }
  const [command, args] = asPostgresUser((await findOnPath('test')) ?? '/usr/bin/test', [
    '-w',
    dirs[0] ?? dataDir,
  ])
  try {
    await run(command, args)
  } catch (error) {
    throw new Error(
      `The postgres system user cannot write ${dirs[0]}: is a folder above ${dataDir} closed to other users? ` +
        `Choose a data folder under a world-traversable path. (${errorMessage(error).split('\n')[0]})`,
    )
  }
}

async function postgresUid(): Promise<number> {
  try {
    return Number((await run('id', ['-u', 'postgres'])).trim())
  } catch {
    await run(sbin('useradd'), [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ])
    return Number((await run('id', ['-u', 'postgres'])).trim())
  }
}

async function initdbOnce(
  bins: PostgresBinaries,
  pgDir: string,
  dataDir: string,
  log: (line: string) => void,
): Promise<void> {
  if (existsSync(join(pgDir, 'PG_VERSION'))) return
  const leftovers = await readdir(pgDir)
  if (leftovers.length > 0) {
    // No PG_VERSION means an earlier initdb died half way; initdb refuses a non-empty directory.
    log(`postgres: ${pgDir} holds an unfinished initdb; clearing it`)
    for (const entry of leftovers) await rm(join(pgDir, entry), { recursive: true, force: true })
  }
  log(`postgres: creating a cluster in ${pgDir}`)
  // C locale: initdb fails on a LANG that is not generated on this machine; UTF8 keeps every character storable.
  const args = ['-D', pgDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']
  const [command, commandArgs] = asPostgresUser(bins.initdb, args)
  await run(command, commandArgs, { cwd: dataDir })
}

/** The same server as `url`, as the superuser initdb created (trust auth: no password). */
function superuserUrl(url: string): string {
  const admin = new URL(url)
  admin.username = 'postgres'
  admin.password = ''
  admin.pathname = '/postgres'
  return admin.toString()
}

/**
 * initdb creates only the `postgres` superuser; a DATABASE_URL naming another user would then be
 * refused. This server is a throwaway with trust auth, so give that user the same powers.
 */
async function ensureRole(url: string): Promise<void> {
  const target = new URL(url)
  const user = decodeURIComponent(target.username) || process.env.PGUSER || userInfo().username
  if (user === 'postgres') return
  const sql = postgres(superuserUrl(url), { max: 1, connect_timeout: 3, onnotice: () => {} })
  try {
    const existing = await sql`select 1 from pg_roles where rolname = ${user}`
    if (existing.length === 0) await sql`create role ${sql(user)} login superuser`
  } finally {
    await sql.end({ timeout: 1 })
  }
}
