import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureServices, probePostgres, probeRedis, type Services } from './index'

/** Ports the OS says are free right now: listen on 0 for each at once (so they differ), then close. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer()
          server.once('error', reject)
          server.listen(0, '127.0.0.1', () => resolve(server))
        }),
    ),
  )
  const ports = servers.map((server) => {
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP address')
    return address.port
  })
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}

describe('ensureServices', () => {
  let dataDir: string
  const lines: string[] = []
  const log = (line: string) => lines.push(line)
  const toStop: Services[] = []

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fairlane-services-'))
  })

  afterAll(async () => {
    // Whatever an assertion left running must not outlive the test run.
    for (const services of toStop) await services.stop().catch(() => {})
    await rm(dataDir, { recursive: true, force: true })
  })

  it('starts project-local PostgreSQL and Redis on the URLs’ ports, and stops them', async () => {
    const [pgPort, redisPort] = await freePorts(2)
    const databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/fairlane_x`
    const redisUrl = `redis://127.0.0.1:${redisPort}`

    const services = await ensureServices({ databaseUrl, redisUrl, dataDir, log })
    toStop.push(services)
    expect(services.started.sort()).toEqual([`postgres:${pgPort}`, `redis:${redisPort}`])
    expect(services.databaseUrl).toBe(databaseUrl)
    expect(services.redisUrl).toBe(redisUrl)

    const sql = postgres(`postgres://postgres@127.0.0.1:${pgPort}/postgres`, { max: 1, onnotice: () => {} })
    try {
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }])
    } finally {
      await sql.end()
    }

    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 })
    try {
      await redis.connect()
      expect(await redis.ping()).toBe('PONG')
      // The queue's promises depend on these: BullMQ keys must never be evicted, and survive a restart.
      expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction'])
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes'])
    } finally {
      redis.disconnect()
    }

    // A second call while they run starts nothing: it finds them answering.
    const again = await ensureServices({ databaseUrl, redisUrl, dataDir, log })
    expect(again.started).toEqual([])

    await services.stop()
    await services.stop() // safe twice
    expect((await probePostgres(databaseUrl, 1)).state).toBe('down')
    expect((await probeRedis(redisUrl, 500)).state).toBe('down')
  })

  it('uses the machine’s running servers and starts nothing', async (context) => {
    // Only meaningful where the machine runs them (CI and dev machines of this kind do).
    const machinePg = await probePostgres('postgres://postgres@127.0.0.1:5432/fairlane')
    const machineRedis = await probeRedis('redis://127.0.0.1:6379')
    if (machinePg.state !== 'up' || machineRedis.state !== 'up') context.skip()

    const explicit = await ensureServices({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/fairlane',
      redisUrl: 'redis://127.0.0.1:6379',
      dataDir,
      log,
    })
    expect(explicit.started).toEqual([])
    await explicit.stop()

    const defaults = await ensureServices({ dataDir, log })
    expect(defaults.started).toEqual([])
    expect(defaults.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/fairlane')
    expect(defaults.redisUrl).toBe('redis://127.0.0.1:6379')
    await defaults.stop()
  })

  it('names host:port, never the password, when a remote DATABASE_URL does not answer', async () => {
    // 192.0.2.0/24 is TEST-NET-1: reserved for documentation, never routed.
    const attempt = ensureServices({
      databaseUrl: 'postgres://app:s3cret-password@192.0.2.1:5432/fairlane',
      redisUrl: 'redis://127.0.0.1:6379',
      dataDir,
      log,
    })
    await expect(attempt).rejects.toThrow(/192\.0\.2\.1:5432 \(DATABASE_URL\) does not answer/)
    await expect(attempt).rejects.not.toThrow(/s3cret/)
  })

  it('refuses to start a server on a loopback port that something else holds', async () => {
    const holder = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const address = holder.address()
    const port = typeof address === 'object' && address ? address.port : 0
    try {
      const attempt = ensureServices({
        databaseUrl: 'postgres://postgres@127.0.0.1:5432/fairlane',
        redisUrl: `redis://127.0.0.1:${port}`,
        dataDir,
        log,
      })
      await expect(attempt).rejects.toThrow(
        `Redis does not answer on 127.0.0.1:${port}, but something else listens there`,
      )
    } finally {
      holder.close()
    }
  })
})
