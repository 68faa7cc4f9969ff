import { existsSync } from 'node:fs'
import { mkdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createProbeConnection, type RedisClient } from '@fairlane/queue'
import { ensureRedisServer } from './binaries'
import {
  errorMessage,
  hostPort,
  isLoopback,
  portInUse,
  portOf,
  run,
  tail,
  waitFor,
  withTimeout,
} from './process'
import type { EnsuredService, Probe } from './types'

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'
/** Where the project-local server listens when no REDIS_URL was given and 6379 has no server. */
export const LOCAL_REDIS_PORT = 63799
const START_TIMEOUT_MS = 30_000

/** A client that tries once and gives up: no reconnect loop, no queued commands while offline. */
function oneShotClient(url: string, timeoutMs: number): RedisClient {
  const client = createProbeConnection({ url, cluster: false }, timeoutMs, {
    // Without the INFO ready check, a server still loading its AOF answers PING with LOADING at once
    // (we report "starting") instead of holding connect() until our timeout calls it down.
    enableReadyCheck: false,
  })
  // ioredis rejects a failed connect() with a bare "Connection is closed."; keep the socket's own error.
  client.on('error', (error: Error) => {
    lastErrors.set(client, error)
  })
  return client
}

const lastErrors = new WeakMap<RedisClient, Error>()

export async function probeRedis(url: string, timeoutMs = 2000): Promise<Probe> {
  const client = oneShotClient(url, timeoutMs)
  try {
    // connect() waits for the ready check too, which connectTimeout does not bound: cap the whole exchange.
    const pong = await withTimeout(
      client.connect().then(() => client.ping()),
      timeoutMs + 500,
      'PING',
    )
    return pong === 'PONG' ? { state: 'up' } : { state: 'rejected', reason: `PING answered ${pong}` }
  } catch (error) {
    const reason = errorMessage(lastErrors.get(client) ?? error)
    if (/^LOADING/m.test(reason)) return { state: 'starting', reason }
    if (/NOAUTH|WRONGPASS|NOPERM|ERR AUTH|invalid username-password/i.test(reason))
      return { state: 'rejected', reason }
    return { state: 'down', reason }
  } finally {
    client.disconnect()
  }
}

async function settle(url: string, probe: Probe): Promise<Probe> {
  if (probe.state !== 'starting') return probe
  let last: Probe = probe
  await waitFor(
    async () => {
      last = await probeRedis(url, 1000)
      return last.state !== 'starting'
    },
    { what: `Redis at ${hostPort(new URL(url), 6379)} to load its data`, timeoutMs: START_TIMEOUT_MS },
  )
  return last
}

const used = (url: string): EnsuredService => ({ url, started: null, stop: async () => {} })

/** Same policy as ensurePostgres: the given Redis, else on loopback a project-local one on that port. */
export async function ensureRedis(options: {
  url?: string
  dataDir: string
  log: (line: string) => void
}): Promise<EnsuredService> {
  const { dataDir, log } = options
  const url = options.url ?? DEFAULT_REDIS_URL
  const target = new URL(url)
  const where = hostPort(target, 6379)
  const probe = await settle(url, await probeRedis(url))
  if (probe.state === 'up') {
    log(`redis: using ${where}`)
    return used(url)
  }

  if (options.url !== undefined) {
    if (probe.state === 'rejected') {
      throw new Error(`Redis at ${where} (REDIS_URL) answered but refused the connection: ${probe.reason}`)
    }
    if (!isLoopback(target.hostname)) {
      throw new Error(
        `Redis at ${where} (REDIS_URL) does not answer (${probe.reason}). ` +
          'Start that server, or set REDIS_URL to one that is running.',
      )
    }
    log(`redis: ${where} does not answer (${probe.reason}); starting a project-local server on that port`)
    return startLocalRedis(url, dataDir, log)
  }

  const localUrl = new URL(url)
  localUrl.port = String(LOCAL_REDIS_PORT)
  const local = localUrl.toString()
  const previous = await settle(local, await probeRedis(local))
  if (previous.state === 'up') {
    log(
      `redis: ${where} does not answer (${probe.reason}); using 127.0.0.1:${LOCAL_REDIS_PORT} (already running)`,
    )
    return used(local)
  }
  if (previous.state === 'rejected') {
    throw new Error(
      `Redis at 127.0.0.1:${LOCAL_REDIS_PORT} answered but refused the connection: ${previous.reason}`,
    )
  }
  log(
    `redis: ${where} does not answer (${probe.reason}); starting a project-local server on ${LOCAL_REDIS_PORT}`,
  )
  return startLocalRedis(local, dataDir, log)
}

function bindAddresses(hostname: string): string[] {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  // `-` marks an address Redis may skip when the machine lacks it (no IPv6 loopback in some containers).
  return host === 'localhost' ? ['127.0.0.1', '-::1'] : [host]
}

async function startLocalRedis(
  url: string,
  dataDir: string,
  log: (line: string) => void,
): Promise<EnsuredService> {
  const target = new URL(url)
  const port = portOf(target, 6379)
  const where = hostPort(target, 6379)
  if (await portInUse(target.hostname, port)) {
    throw new Error(
      `Redis does not answer on ${where}, but something else listens there: free the port or use another one.`,
    )
  }
  const redisServer = await ensureRedisServer(`Redis does not answer on ${where}`, log)
  const redisDir = join(dataDir, 'redis')
  const logPath = join(dataDir, 'redis.log')
  await mkdir(redisDir, { recursive: true })

  const logOffset = existsSync(logPath) ? (await stat(logPath)).size : 0
  const startedAt = Date.now()
  // Same settings as the compose `redis-queue`: BullMQ must never lose keys to eviction, and AOF keeps the queue.
  await run(redisServer, [
    '--port',
    String(port),
    '--bind',
    ...bindAddresses(target.hostname),
    '--dir',
    redisDir,
    '--appendonly',
    'yes',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'yes',
    '--pidfile',
    join(dataDir, 'redis.pid'),
    '--logfile',
    logPath,
  ])
  try {
    await waitFor(
      async () => {
        // The daemon forks before it binds, so a failed bind shows only in its log: stop waiting when it does.
        const fresh = (await readFile(logPath, 'utf8').catch(() => '')).slice(logOffset)
        if (/Failed listening|# Fatal|FATAL|Aborting/.test(fresh)) throw new Error('redis-server failed')
        return (await probeRedis(url, 1000)).state === 'up'
      },
      { what: `Redis on ${where}`, timeoutMs: START_TIMEOUT_MS },
    )
  } catch (error) {
    const logTail = await tail(logPath, 20, logOffset)
    throw new Error(`Could not start Redis on ${where}: ${errorMessage(error)}\n${logPath}:\n${logTail}`)
  }
  log(
    `redis: started on ${where} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (data ${redisDir}, log ${logPath})`,
  )

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      const client = oneShotClient(url, 2000)
      try {
        await client.connect()
        // SHUTDOWN (with save) flushes the AOF; the server closes the connection instead of answering.
        await client.call('SHUTDOWN').catch(() => {})
      } catch {
        // Not reachable any more: already stopped.
      } finally {
        client.disconnect()
      }
      await waitFor(async () => (await probeRedis(url, 500)).state === 'down', {
        what: `Redis on ${where} to stop`,
        timeoutMs: 15_000,
      })
      log(`redis: stopped ${where}`)
    })()
    return stopping
  }
  // SIGTERM is Redis's own SHUTDOWN: the AOF flushed, then exit.
  const stopBySignal = {
    name: `redis:${port}`,
    pidFile: join(dataDir, 'redis.pid'),
    signal: 'SIGTERM',
  } as const
  return { url, started: `redis:${port}`, stop, stopBySignal }
}
