import { Writable } from 'node:stream'
import { outbox } from '@fairlane/db'
import { startTestPipeline, type TestPipeline } from '@fairlane/delivery/testing/pipeline'
import { createTenant, seedQueuedMessages } from '@fairlane/delivery/testing/seed'
import { startTestSink } from '@fairlane/delivery/testing/sink'
import type { MailSink } from '@fairlane/mailsink/sink'
import { connectTestRedis, eventually, setupTestEnvironment } from '@fairlane/testing'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MetricsServer, startMetricsServer } from './metrics-server'

/**
 * The worker's /metrics against real Redis and PostgreSQL: the critical lane has no worker in this
 * pipeline (as if paused), so its mail waits and the depth and age gauges must show it.
 */
const env = setupTestEnvironment('worker-metrics')
let sink: MailSink
let pipeline: TestPipeline
let server: MetricsServer
let tenantId: string
const logLines: Record<string, unknown>[] = []

beforeAll(async () => {
  sink = await startTestSink()
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line))
      done()
    },
  })
  pipeline = await startTestPipeline(env, sink, {
    lanes: ['default', 'bulk'],
    logger: pino({ level: 'info' }, capture),
  })
  server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry: pipeline.registry,
    isShuttingDown: () => false,
    isReady: () => true,
  })
  tenantId = await createTenant(pipeline.database.db)
})
afterAll(async () => {
  await server?.close()
  await pipeline?.stop()
  await sink?.close()
})

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`)
  expect(response.status).toBe(200)
  return response.text()
}

/** The value of one series, e.g. `sample(text, 'fairlane_lane_jobs', { lane: 'critical', state: 'waiting' })`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const labelText = line.slice(name.length).split(' ')[0] ?? ''
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1))
    }
  }
  return undefined
}

describe('worker /metrics', () => {
  it('shows critical depth rising and the oldest waiting age growing while no critical worker runs', async () => {
    const before = await scrape()
    expect(sample(before, 'fairlane_lane_jobs', { lane: 'critical', state: 'waiting' })).toBe(0)
    expect(sample(before, 'fairlane_lane_oldest_waiting_age_seconds', { lane: 'critical' })).toBe(0)
    expect(sample(before, 'fairlane_outbox_lag_seconds')).toBe(0)
    expect(sample(before, 'fairlane_dead_letter_queue_size')).toBe(0)

    await seedQueuedMessages(pipeline.database.db, { tenantId, lane: 'critical', count: 5 })
    const first = await eventually(
      async () => {
        const text = await scrape()
        return sample(text, 'fairlane_lane_jobs', { lane: 'critical', state: 'waiting' }) === 5
          ? text
          : undefined
      },
      { what: 'five critical jobs waiting on /metrics', timeoutMs: 10_000, intervalMs: 100 },
    )
    const firstAge = sample(first, 'fairlane_lane_oldest_waiting_age_seconds', { lane: 'critical' }) ?? -1
    expect(firstAge).toBeGreaterThanOrEqual(0)
    await eventually(
      async () => {
        const age =
          sample(await scrape(), 'fairlane_lane_oldest_waiting_age_seconds', { lane: 'critical' }) ?? 0
        return age >= firstAge + 0.5
      },
      { what: 'oldest waiting age growing between scrapes', timeoutMs: 10_000, intervalMs: 100 },
    )
    // The relay published them, so the outbox is caught up; the backlog shows the tenant's queued mail.
    const text = await scrape()
    expect(sample(text, 'fairlane_outbox_lag_seconds')).toBe(0)
    expect(sample(text, 'fairlane_tenant_backlog', { tenant: tenantId, status: 'queued' })).toBe(5)
    expect(sample(text, 'fairlane_lane_jobs', { lane: 'default', state: 'waiting' })).toBe(0)
  })

  it("exports the queue Redis's used memory and maxmemory, as INFO reports them", async () => {
    const text = await scrape()
    const used = sample(text, 'fairlane_redis_used_memory_bytes')
    const max = sample(text, 'fairlane_redis_maxmemory_bytes')
    const redis = connectTestRedis(env)
    const info = await redis.info('memory').finally(() => redis.quit())
    const reported = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1])
    // Used memory moves between the scrape and INFO; a megabyte either way is the same Redis.
    expect(used).toBeGreaterThan(0)
    expect(Math.abs((used ?? 0) - reported('used_memory'))).toBeLessThan(1_048_576)
    expect(max).toBe(reported('maxmemory'))
  })

  it('counts a dead-lettered message in the dead-letter gauge and logs it with its ids', async () => {
    const to = 'nobody@example.com'
    sink.faults.add({ match: to, reply: '550 5.1.1 no such user' })
    const [message] = await seedQueuedMessages(pipeline.database.db, {
      tenantId,
      lane: 'default',
      to: () => to,
    })
    await eventually(async () => sample(await scrape(), 'fairlane_dead_letter_queue_size') === 1, {
      what: 'dead-letter gauge at 1',
      timeoutMs: 15_000,
      intervalMs: 100,
    })
    expect(sample(await scrape(), 'fairlane_dead_lettered_total', { lane: 'default' })).toBe(1)
    const line = logLines.find((entry) => entry.msg === 'job dead-lettered')
    expect(line).toMatchObject({
      level: 50,
      tenantId,
      messageId: message?.id,
      lane: 'default',
      jobId: expect.any(String),
      err: expect.stringContaining('550 5.1.1'),
    })
    // The lane processor's lines about the same message carry the same ids.
    const failed = logLines.find((entry) => entry.msg === 'send failed permanently')
    expect(failed).toMatchObject({ tenantId, messageId: message?.id, lane: 'default', jobId: line?.jobId })
    // And every line that names a message names its tenant, lane and job too.
    const aboutMessages = logLines.filter((entry) => entry.messageId !== undefined)
    expect(aboutMessages.length).toBeGreaterThan(0)
    for (const entry of aboutMessages) {
      expect(entry, String(entry.msg)).toMatchObject({
        tenantId: expect.any(String),
        lane: expect.any(String),
        jobId: expect.any(String),
      })
    }
  })

  it('shows the outbox lag of a row the relay has not published', async () => {
    const { db } = pipeline.database
    // A topic no relay claims: it stays unpublished, as it would while Redis is away.
    await db.insert(outbox).values({
      topic: 'test.unclaimed',
      payload: {},
      createdAt: new Date(Date.now() - 45_000),
    })
    const lag = sample(await scrape(), 'fairlane_outbox_lag_seconds') ?? 0
    expect(lag).toBeGreaterThanOrEqual(45)
    expect(lag).toBeLessThan(120)
  })
})
