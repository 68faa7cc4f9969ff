import { createDatabase, type DatabaseHandle, messages } from '@fairlane/db'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  type Queues,
  type RedisClient,
} from '@fairlane/queue'
import { setupTestEnvironment } from '@fairlane/testing'
import { type Job, type Queue, Worker } from 'bullmq'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant, setPlan } from '../../testing/seed'
import { createWorkerMetrics } from '../metrics'
import { createPacerMemory, type PacerMemory, paceOnce } from './pacer'

/**
 * fq_codel's new-flows rule carried through to the lane: the planner gives a tenant that just became
 * active its first turn in the next tick, and its job must then be the next one a worker takes, not
 * the last of the jobs already queued for the old flows (real PostgreSQL, real Redis, BullMQ's own
 * `moveToActive`).
 */
const env = setupTestEnvironment('pacer-new-flows')
let database: DatabaseHandle
let connection: RedisClient
let queues: Queues | undefined
const workers: Worker[] = []

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4, applicationName: 'test-pacer-new-flows' })
  connection = createProducerConnection(
    { url: env.redisUrl, cluster: env.redisCluster },
    'test-pacer-new-flows',
    testLogger(),
  )
})
afterEach(async () => {
  // Each test starts with no backlog: the next one's pacer memory reads the whole active set.
  await database.sql`delete from messages where status = 'pending'`
  for (const worker of workers.splice(0)) await worker.close()
  if (queues) await closeQueues(queues)
  queues = undefined
})
afterAll(async () => {
  connection?.disconnect()
  await database?.close()
})

async function seedPending(name: string, count: number): Promise<string> {
  const tenantId = await createTenant(database.db, name)
  // A plan far above what the test releases: the lane's depth alone limits each tick.
  await setPlan(database.db, tenantId, { ratePerSec: 10_000, burst: 10_000 })
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

function tick(lanes: Queues['lanes'], memory: PacerMemory, highWater: number, batchSize: number) {
  return paceOnce(
    {
      db: database.db,
      bulkLane: lanes,
      highWater,
      batchSize,
      horizonMs: 60_000,
      logger: testLogger(),
      metrics: createWorkerMetrics(new Registry()),
    },
    memory,
  )
}

/** The job a bulk worker on this shard takes next, through BullMQ's own `moveToActive`. */
async function takeNext(queue: Queue): Promise<Job | undefined> {
  let worker = workers.find((candidate) => candidate.name === queue.name)
  if (!worker) {
    worker = new Worker(queue.name, null, {
      connection: { url: env.redisUrl },
      prefix: queue.opts.prefix,
      autorun: false,
    })
    workers.push(worker)
  }
  return worker.getNextJob('test-token', { block: false })
}

function messagesOf(job: Job): number {
  return Array.isArray(job.data.messageIds) ? job.data.messageIds.length : 1
}

describe('pacer: a new flow’s first job is taken before the old flows’ jobs', () => {
  it.each([
    { batchSize: 1, shards: 1 },
    { batchSize: 10, shards: 2 },
  ])(
    'is taken before the big tenant’s queued jobs (batch size $batchSize, $shards shards)',
    async ({ batchSize, shards }) => {
      queues = createQueues(connection, `${env.queuePrefix}-b${batchSize}`, testLogger(), shards)
      const lanes = queues.lanes
      const memory = createPacerMemory(60_000)
      const big = await seedPending(`Big ${batchSize}`, 400)
      expect(await tick(lanes, memory, 150, batchSize)).toBe('released')
      const bigShard = lanes.queueFor('bulk', big)
      // Big's own first turn (one message) in the wait list; its later turns in the prioritized set
      // (OLD_FLOWS_PRIORITY). A worker takes that first job first.
      const queuedBefore = await bigShard.getJobCounts('waiting', 'prioritized')
      expect(queuedBefore.prioritized).toBeGreaterThan(batchSize === 1 ? 100 : 10)
      expect(queuedBefore.waiting).toBe(1)
      expect((await takeNext(bigShard))?.data.fresh).toBe(true)

      // Small's campaign comes due while Big's jobs fill the lane; the next tick has room again.
      const small = await seedPending(`Small ${batchSize}`, 3)
      expect(await tick(lanes, memory, 300, batchSize)).toBe('released')
      const smallShard = lanes.queueFor('bulk', small)
      const first = await takeNext(smallShard)
      expect(first?.data.tenantId).toBe(small)
      // Its first turn (weight 1) is one message; the rest of its rows wait their turns like anyone's.
      expect(first ? messagesOf(first) : 0).toBe(1)
      // Marked, so its worker takes the next free SMTP connection ahead of the waiting batches.
      expect(first?.data.fresh).toBe(true)

      // Old flows stay first in, first out: Big's next job is the one the first tick added first.
      const bigNext = await takeNext(bigShard)
      expect(bigNext?.data.tenantId).toBe(big)
      expect(bigNext?.data.fresh).toBeUndefined()
      const bigJobs = (await bigShard.getJobs(['prioritized'])).filter((job) => job.data.tenantId === big)
      const oldest = Math.min(...bigJobs.map((job) => job.timestamp))
      expect(bigNext?.timestamp).toBeLessThanOrEqual(oldest)
    },
  )

  it('keeps several new flows in the order the planner served them', async () => {
    queues = createQueues(connection, `${env.queuePrefix}-order`, testLogger(), 1)
    const lanes = queues.lanes
    const memory = createPacerMemory(60_000)
    await seedPending('Big order', 200)
    await tick(lanes, memory, 100, 1)
    const [queue] = lanes.shardsOf('bulk')
    if (!queue) throw new Error('no bulk shard')
    // Big's own first turn.
    await takeNext(queue)
    const newcomers: string[] = []
    for (const n of [1, 2, 3]) newcomers.push(await seedPending(`Newcomer ${n}`, 2))
    await tick(lanes, memory, 200, 1)
    const taken: string[] = []
    for (let n = 0; n < 3; n++) taken.push((await takeNext(queue))?.data.tenantId)
    // The set's change read lists them in the order they were stamped; each had one turn.
    expect(new Set(taken)).toEqual(new Set(newcomers))
    expect(taken).toEqual(newcomers)
  })

  it('serves the newcomers of an earlier tick before those of a later one, all before the old flows', async () => {
    queues = createQueues(connection, `${env.queuePrefix}-ticks`, testLogger(), 1)
    const lanes = queues.lanes
    const memory = createPacerMemory(60_000)
    const big = await seedPending('Big ticks', 200)
    await tick(lanes, memory, 100, 1)
    const [queue] = lanes.shardsOf('bulk')
    if (!queue) throw new Error('no bulk shard')
    expect((await takeNext(queue))?.data.tenantId).toBe(big)
    const early = await seedPending('Early', 2)
    await tick(lanes, memory, 110, 1)
    const late = await seedPending('Late', 2)
    await tick(lanes, memory, 120, 1)
    const taken: string[] = []
    for (let n = 0; n < 4; n++) taken.push((await takeNext(queue))?.data.tenantId)
    // A LIFO add would take Late before Early: each tick's newcomers buried the last tick's.
    expect(taken.slice(0, 2)).toEqual([early, late])
    expect(taken.slice(2)).toEqual([big, big])
  })
})
