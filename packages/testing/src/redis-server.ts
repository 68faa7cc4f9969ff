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
    async stop() {
      admin.disconnect()
      server.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
