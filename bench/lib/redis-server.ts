import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'

export interface BenchRedis {
  url: string
  /** Sum of `calls` over every `cmdstat_*` line of INFO commandstats (commands run inside scripts included). */
  commandCalls(): Promise<number>
  usedMemory(): Promise<number>
  stop(): Promise<void>
}

/**
 * A redis-server of the benchmark's own (no persistence, noeviction), so `INFO commandstats` and
 * `used_memory` count this run and nothing else on the machine.
 */
export async function startBenchRedis(): Promise<BenchRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'fl-bench-redis-'))
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
      'noeviction',
    ],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  admin.on('error', () => {})
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      if (admin.status !== 'ready') await admin.connect()
      if ((await admin.ping()) === 'PONG') break
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`redis-server on ${port} did not start: ${(error as Error).message}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return {
    url,
    async commandCalls() {
      const info = await admin.info('commandstats')
      let total = 0
      for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1])
      return total
    },
    async usedMemory() {
      const match = /^used_memory:(\d+)/m.exec(await admin.info('memory'))
      return Number(match?.[1] ?? 0)
    },
    async stop() {
      admin.disconnect()
      server.kill('SIGKILL')
      await new Promise((resolve) => server.once('exit', resolve))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}
