import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { probePostgres } from './postgres'
import { errorMessage, isRoot, sbin, tail, waitFor } from './process'

export interface PgBouncerOptions {
  /** The PostgreSQL server PgBouncer pools for (any database name: every database is passed through). */
  serverUrl: string
  /** Its ini and log go to `<dataDir>/pgbouncer-<port>/`. */
  dataDir: string
  /** Default: a free port on 127.0.0.1. */
  port?: number
  /** `transaction` (the default) is the mode that breaks session state and named prepared statements. */
  poolMode?: 'transaction' | 'session'
  log?: (line: string) => void
}

export interface PgBouncer {
  /** A URL for `databaseName` through PgBouncer (same user and password as the server's). */
  url(databaseName: string): string
  port: number
  /** Stops the process this call started; safe to call more than once. */
  stop(): Promise<void>
}

const START_TIMEOUT_MS = 15_000
/** Debian's package, which CI installs (`.ci/run`). */
const HOW_TO_INSTALL = 'install it (Debian: `apt-get install pgbouncer`)'

/**
 * Starts PgBouncer (Debian's 1.18 here) in front of `serverUrl` as a child process: one wildcard
 * database entry so per-test databases pass through, `auth_type = any` (it logs in to the server as
 * the URL's user, which suits a trust-auth test server), no unix socket. PgBouncer refuses to run as
 * root, so as root it drops to the `postgres` user (`-u postgres`).
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const binary = sbin('pgbouncer')
  const log = options.log ?? (() => {})
  const port = options.port ?? (await freePort())
  const dir = join(options.dataDir, `pgbouncer-${port}`)
  await mkdir(dir, { recursive: true })
  // Readable by the postgres user the process drops to.
  await chmod(dir, 0o755)
  const iniPath = join(dir, 'pgbouncer.ini')
  await writeFile(iniPath, iniFor(options.serverUrl, port, options.poolMode ?? 'transaction'), {
    mode: 0o644,
  })
  const logPath = join(dir, 'pgbouncer.log')
  const output = openSync(logPath, 'a')
  const args = [...(isRoot() ? ['-u', 'postgres'] : []), iniPath]
  let child: ChildProcess
  try {
    child = spawn(binary, args, { stdio: ['ignore', output, output] })
  } finally {
    closeSync(output)
  }
  let exited: string | undefined
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exited (${signal ?? code})`
      resolve()
    })
    child.once('error', (error) => {
      exited = errorMessage(error)
      resolve()
    })
  })

  const url = (databaseName: string) => {
    const through = new URL(options.serverUrl)
    through.hostname = '127.0.0.1'
    through.port = String(port)
    through.pathname = `/${databaseName}`
    return through.toString()
  }
  const startedAt = Date.now()
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`pgbouncer ${exited}`)
        return (await probePostgres(url('postgres'), 1)).state === 'up'
      },
      { what: `PgBouncer on 127.0.0.1:${port}`, timeoutMs: START_TIMEOUT_MS },
    )
  } catch (error) {
    child.kill('SIGKILL')
    if (exited?.includes('ENOENT')) throw new Error(`pgbouncer is not installed: ${HOW_TO_INSTALL}`)
    throw new Error(
      `Could not start PgBouncer on 127.0.0.1:${port}: ${errorMessage(error)}\n${logPath}:\n${await tail(logPath, 20)}`,
    )
  }
  log(
    `pgbouncer: started on 127.0.0.1:${port} (${options.poolMode ?? 'transaction'} mode) in ${Date.now() - startedAt} ms, log ${logPath}`,
  )

  let stopping: Promise<void> | undefined
  return {
    url,
    port,
    stop: () => {
      stopping ??= (async () => {
        if (exited) return
        // SIGTERM is PgBouncer's immediate shutdown; the clients are the caller's and already done.
        child.kill('SIGTERM')
        const killed = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exit
        clearTimeout(killed)
        log(`pgbouncer: stopped 127.0.0.1:${port}`)
      })()
      return stopping
    },
  }
}

function iniFor(serverUrl: string, port: number, poolMode: string): string {
  const server = new URL(serverUrl)
  const value = (text: string) => `'${text.replace(/'/g, "''")}'`
  const connection = [
    `host=${server.hostname.replace(/^\[|\]$/g, '')}`,
    `port=${server.port || '5432'}`,
    `user=${value(decodeURIComponent(server.username || 'postgres'))}`,
    ...(server.password ? [`password=${value(decodeURIComponent(server.password))}`] : []),
  ].join(' ')
  return [
    '[databases]',
    // Wildcard: any database name a client asks for is the server's database of that name.
    `* = ${connection}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    // Any client is let in and logs in to the server as the entry's user (the test server trusts it).
    'auth_type = any',
    `pool_mode = ${poolMode}`,
    'max_client_conn = 2000',
    // Per database and user: a test file's pools together stay well under max_connections.
    'default_pool_size = 20',
    'max_db_connections = 40',
    // postgres.js sends no startup options PgBouncer does not track; other clients may (JDBC, psql).
    'ignore_startup_parameters = extra_float_digits,options',
    'log_connections = 0',
    'log_disconnections = 0',
    'stats_period = 3600',
    '',
  ].join('\n')
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}
