import { createDatabase, type DatabaseHandle, messages } from '@fairlane/db'
import { hasVisibleStatus } from '@fairlane/db/queries/message-claims'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  type Queues,
  type RedisClient,
} from '@fairlane/queue'
import { setupTestEnvironment, startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import type { Queue } from 'bullmq'
import { and, eq } from 'drizzle-orm'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { createWorkerMetrics } from '../metrics'
import { createPacerMemory, paceOnce } from './pacer'

/**
 * The pacer against a queue Redis that stops answering (SIGSTOP: connections stay open, nothing
 * answers): a tick must fail within its Redis timeout, and PostgreSQL must never be left holding a
 * transaction open (row locks, a pooled connection `idle in transaction`) while Redis is asked.
 */
const env = setupTestEnvironment('pacer-redis-outage')
const TIMEOUT_MS = 400
let database: DatabaseHandle
let redis: ThrowawayRedis
let connection: RedisClient
let queues: Queues

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4, applicationName: 'test-pacer-outage' })
})
afterEach(async () => {
  redis?.resume()
  if (queues) await closeQueues(queues)
  connection?.disconnect()
  await redis?.stop()
})
afterAll(async () => {
  await database?.close()
})

async function startRedis(): Promise<void> {
  redis = await startThrowawayRedis()
  connection = createProducerConnection({ url: redis.url, cluster: false }, 'test-pacer', testLogger())
  queues = createQueues(connection, env.queuePrefix, testLogger(), 1)
  await bulkQueue().getJobCounts('waiting')
}

/** The bulk lane's one shard (LANE_SHARDS=1). */
function bulkQueue(): Queue {
  const [queue] = queues.lanes.shardsOf('bulk')
  if (!queue) throw new Error('no bulk queue')
  return queue
}

async function seedPending(count: number): Promise<string> {
  const tenantId = await createTenant(database.db, 'Newsletter')
  await database.db.insert(messages).values(
    Array.from({ length: count }, (_, index) => ({
      tenantId,
      lane: 'bulk' as const,
      status: 'pending' as const,
      toAddress: `reader${index}@example.test`,
      subject: 'News',
      text: 'Hello',
    })),
  )
  return tenantId
}

async function statusCount(tenantId: string, status: 'pending' | 'queued'): Promise<number> {
  const rows = await database.db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), hasVisibleStatus(status)))
  return rows.length
}

/**
 * Open transactions of this test's database that have waited on their client for over 150 ms, sampled
 * until `done`. A transaction held across the Redis call waits out its 400 ms timeout; the claim's own
 * transaction sits idle between its statements for a moment, which a loaded machine can stretch to
 * a sample's worth but not to 150 ms.
 */
async function watchIdleInTransaction(done: Promise<unknown>): Promise<number> {
  let settled = false
  const mark = () => {
    settled = true
  }
  done.then(mark, mark)
  let most = 0
  while (!settled) {
    const [row] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'idle in transaction'
        and now() - state_change > interval '150 milliseconds'`
    most = Math.max(most, row?.n ?? 0)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return most
}

function tick(bulkLane: Parameters<typeof paceOnce>[0]['bulkLane']) {
  return paceOnce(
    {
      db: database.db,
      bulkLane,
      highWater: 50,
      horizonMs: 1_000,
      redisTimeoutMs: TIMEOUT_MS,
      logger: testLogger(),
      metrics: createWorkerMetrics(new Registry()),
    },
    createPacerMemory(1_000),
  )
}

describe('pacer with a queue Redis that stops answering', () => {
  it('fails a tick within its Redis timeout when Redis hangs from the start', async () => {
    await startRedis()
    const tenantId = await seedPending(5)
    redis.pause()
    const started = Date.now()
    await expect(tick(queues.lanes)).rejects.toThrow(/did not answer bulk queue depth within 400 ms/)
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_500)
    expect(await statusCount(tenantId, 'pending')).toBe(5)
  })

  it('holds no PostgreSQL transaction open while Redis hangs on the add, and gives the rows back', async () => {
    await startRedis()
    const tenantId = await seedPending(5)
    // Redis answers the depth, then stops before the jobs are added: the worst moment, rows claimed.
    const queue = bulkQueue()
    const pausing = {
      getJobCounts: queue.getJobCounts.bind(queue),
      addBulk: (jobs: Parameters<Queue['addBulk']>[0]) => {
        redis.pause()
        return queue.addBulk(jobs)
      },
    }
    const started = Date.now()
    const result = tick({ shardsOf: () => [pausing], queueFor: () => pausing })
    const [outcome, idleInTransaction] = await Promise.all([
      result.then(
        () => 'resolved',
        (error: Error) => error.message,
      ),
      watchIdleInTransaction(result),
    ])
    expect(outcome).toMatch(/did not answer bulk addBulk within 400 ms/)
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_500)
    expect(idleInTransaction).toBe(0)
    // Nothing claimed is stranded: the rows are pending again for the next tick.
    expect(await statusCount(tenantId, 'queued')).toBe(0)
    expect(await statusCount(tenantId, 'pending')).toBe(5)

    // Redis back: the next tick releases them.
    redis.resume()
    await expect(tick(queues.lanes)).resolves.toBe('released')
    expect(await statusCount(tenantId, 'queued')).toBe(5)
    const jobs = await bulkQueue().getJobs(['waiting', 'prioritized'])
    expect(jobs.filter((job) => job.data.tenantId === tenantId)).toHaveLength(5)
  })
})
