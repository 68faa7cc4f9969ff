import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { eventually, freePort } from './processes'

export interface ThrowawayRedis {
  url: string
  /** A plain client for FLUSHALL and inspection; never point it at the shared Redis. */
  admin: Redis
  /** SIGSTOP: the server keeps its connections but answers nothing, as a hung Redis does. */
  pause(): void
  /** SIGCONT after `pause`. */
  resume(): void
  stop(): Promise<void>
}

/** A redis-server of this test's own on a free port, so destroying its data harms no other test. */
export async function startThrowawayRedis(options: { policy?: string } = {}): Promise<ThrowawayRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'fl-redis-'))
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--maxmemory-policy',
      options.policy ?? 'noeviction',
    ],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  admin.on('error', () => {})
  await eventually(
    async () => {
      if (admin.status !== 'ready') await admin.connect().catch(() => {})
      return (await admin.ping()) === 'PONG'
    },
    { what: 'throwaway redis-server' },
  )
  return {
    url,
    admin,
    pause: () => void server.kill('SIGSTOP'),
    resume: () => void server.kill('SIGCONT'),
    /** Idempotent: a second call (a test that stopped it, then its cleanup) returns at once. */
    async stop() {
      admin.disconnect()
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve))
        server.kill('SIGKILL')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Commands the Redis server has run since it started, summed over every `cmdstat_*` line of
 * `INFO commandstats` (commands a Lua script calls are counted too). Server-wide: use it only on a
 * Redis nobody else is using (`startThrowawayRedis`).
 */
export async function redisCommandCalls(redis: Pick<Redis, 'info'>): Promise<number> {
  const info = await redis.info('commandstats')
  let calls = 0
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(match[1])
  return calls
}

/** `used_memory` from `INFO memory`, in bytes. */
export async function redisUsedMemory(redis: Pick<Redis, 'info'>): Promise<number> {
  const match = /^used_memory:(\d+)/m.exec(await redis.info('memory'))
  return Number(match?.[1] ?? 0)
}
