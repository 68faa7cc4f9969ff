import { createServer } from 'node:net'
import {
  eventually,
  freePort,
  setupTestEnvironment,
  spawnEntry,
  startThrowawayRedis,
} from '@fairlane/testing'
import { afterAll, describe, expect, it } from 'vitest'

const ENTRY = 'apps/worker/src/main.ts'
const test = setupTestEnvironment('worker-boot')

async function workerEnv(overrides: Record<string, string> = {}) {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: test.databaseUrl,
    REDIS_URL: test.redisUrl,
    QUEUE_PREFIX: test.queuePrefix,
    WORKER_METRICS_PORT: String(await freePort()),
    SHUTDOWN_FORCE_EXIT_MS: '10000',
    ...overrides,
  }
}

describe('worker boot and shutdown', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup()
  })

  it('serves /metrics and /health, then exits 0 on SIGTERM', async () => {
    const env = await workerEnv({ SCHEDULE_TIME_ZONE: 'Europe/Berlin' })
    const worker = spawnEntry(ENTRY, env)
    const base = `http://127.0.0.1:${env.WORKER_METRICS_PORT}`
    await eventually(async () => (await fetch(`${base}/health`)).ok, {
      what: 'worker /health',
      timeoutMs: 20_000,
    })
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toContain('process_cpu_user_seconds_total')
    expect(metrics).toMatch(/fairlane_lane_oldest_waiting_age_seconds\{lane="critical",service="worker"\} 0/)
    expect(metrics).toMatch(/fairlane_outbox_lag_seconds\{service="worker"\} 0/)
    // The boot log lists every scheduler with its period or pattern and time zone.
    const registered = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('job scheduler registered'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(registered).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ scheduler: 'campaign-dispatch', every: 1000 }),
        expect.objectContaining({ scheduler: 'nightly-cleanup', pattern: '15 3 * * *', tz: 'Europe/Berlin' }),
        expect.objectContaining({
          scheduler: 'tenant-daily-rollup',
          pattern: '10 0 * * *',
          tz: 'Europe/Berlin',
        }),
      ]),
    )
    worker.child.kill('SIGTERM')
    const { code } = await worker.exited
    expect(code, worker.output()).toBe(0)
    expect(worker.output()).toContain('shutdown complete')
  })

  it('refuses a Redis whose maxmemory-policy is allkeys-lru, naming the policy', async () => {
    const redis = await startThrowawayRedis({ policy: 'allkeys-lru' })
    cleanups.push(redis.stop)
    const worker = spawnEntry(ENTRY, await workerEnv({ REDIS_URL: redis.url }))
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output()).toMatch(/maxmemory-policy is allkeys-lru/)
  })

  it('starts on a noeviction Redis (the policy check is not a blanket refusal)', async () => {
    const redis = await startThrowawayRedis()
    cleanups.push(redis.stop)
    const env = await workerEnv({ REDIS_URL: redis.url })
    const worker = spawnEntry(ENTRY, env)
    await eventually(async () => (await fetch(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/health`)).ok, {
      what: 'worker /health',
      timeoutMs: 20_000,
    })
    worker.child.kill('SIGTERM')
    expect((await worker.exited).code).toBe(0)
  })

  it('stops with one line naming REDIS_URL when Redis is unreachable', async () => {
    const worker = spawnEntry(ENTRY, await workerEnv({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }))
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output()).toMatch(/worker: cannot reach Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\)/)
  })

  it('stops naming DATABASE_URL when it is malformed', async () => {
    const worker = spawnEntry(ENTRY, await workerEnv({ DATABASE_URL: 'not a url' }))
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output()).toContain('invalid environment variable DATABASE_URL')
  })

  it('stops naming SCHEDULE_TIME_ZONE when it is not an IANA zone', async () => {
    const worker = spawnEntry(ENTRY, await workerEnv({ SCHEDULE_TIME_ZONE: 'Mars/Olympus_Mons' }))
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output()).toContain('SCHEDULE_TIME_ZONE')
    expect(worker.output()).toContain('expected an IANA time zone name')
  })

  it('stops naming WORKER_METRICS_PORT when the port is taken', async () => {
    const blocker = createServer()
    const port = await freePort()
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve())))
    const worker = spawnEntry(ENTRY, await workerEnv({ WORKER_METRICS_PORT: String(port) }))
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output()).toContain(`worker: port ${port} is already in use (WORKER_METRICS_PORT)`)
  })
})
