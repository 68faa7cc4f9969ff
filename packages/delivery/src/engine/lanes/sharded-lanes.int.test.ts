import type { Lane } from '@fairlane/core'
import { messages } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { sendJobId, tenantShard } from '@fairlane/queue'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { eq, gt } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, type SeedMessage, seedCampaign, seedQueuedMessages, setPlan } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * LANE_SHARDS=3 on the single-node Redis. First a pipeline with no lane workers (relay, sweeper,
 * dispatch and pacer only), so what the producers did can be read in Redis: each tenant's jobs in its
 * own shard and nowhere else, the pacer's depth counted over every shard, a lost job republished into
 * its shard and no live one republished. Then a pipeline with every lane worker delivers all of it,
 * each message exactly once.
 */
const test = setupTestEnvironment('sharded-lanes')
const SHARDS = 3
const HIGH_WATER = 60
let sink: MailSink
let producers: TestPipeline | undefined
let inspect: ReturnType<typeof inspectQueues>
const tenantIds: string[] = []
const seeded: SeedMessage[] = []
let campaignRecipients = 0

/** Tenants until every shard has at least two (tenant ids are random). */
async function tenantsOnEveryShard(db: TestPipeline['database']['db']): Promise<void> {
  const perShard = new Array<number>(SHARDS).fill(0)
  for (let made = 0; perShard.some((count) => count < 2); made++) {
    if (made > 60) throw new Error(`60 tenants did not cover ${SHARDS} shards: ${perShard}`)
    const tenantId = await createTenant(db, `Tenant ${made}`)
    tenantIds.push(tenantId)
    perShard[tenantShard(tenantId, SHARDS)] = (perShard[tenantShard(tenantId, SHARDS)] ?? 0) + 1
  }
}

/**
 * Every message in a job of the lane, with the shard its job was found in (a batch job, bulk's or the
 * default lane's under TX_BATCH_SIZE, carries several).
 */
async function queuedByShard(lane: Lane) {
  const shards = inspect.queues.lanes.shardsOf(lane)
  const found = await Promise.all(
    shards.map((queue) => queue.getJobs(['waiting', 'delayed', 'prioritized', 'active'])),
  )
  return found.flatMap((jobs, shard) =>
    jobs.flatMap((job) =>
      (Array.isArray(job.data.messageIds) ? job.data.messageIds : [job.data.messageId]).map(() => ({
        shard,
        id: job.id,
        tenantId: String(job.data.tenantId),
      })),
    ),
  )
}

beforeAll(async () => {
  sink = await startTestSink()
  inspect = inspectQueues(test, SHARDS)
  producers = await startTestPipeline(test, sink, {
    laneShards: SHARDS,
    lanes: [],
    pacer: { highWater: HIGH_WATER, horizonMs: 1_000 },
  })
})
afterAll(async () => {
  await producers?.stop()
  await inspect?.close()
  await sink?.close()
})

describe('sharded lanes (LANE_SHARDS=3)', () => {
  it("adds each tenant's transactional jobs to its own shard, and nowhere else", async () => {
    const pipeline = producers as TestPipeline
    await tenantsOnEveryShard(pipeline.database.db)
    for (const [index, tenantId] of tenantIds.entries()) {
      for (const lane of ['critical', 'default'] as const) {
        seeded.push(
          ...(await seedQueuedMessages(pipeline.database.db, {
            tenantId,
            lane,
            count: 4,
            to: (i) => `t${index}-${lane}-${i}@example.com`,
          })),
        )
      }
    }
    const expected = (lane: Lane) => seeded.filter((message) => message.lane === lane).length
    for (const lane of ['critical', 'default'] as const) {
      const jobs = await eventually(
        async () => {
          const found = await queuedByShard(lane)
          return found.length === expected(lane) && found
        },
        { what: `every ${lane} job added` },
      )
      for (const job of jobs) expect(job.shard).toBe(tenantShard(job.tenantId, SHARDS))
      expect(new Set(jobs.map((job) => job.shard))).toEqual(new Set([0, 1, 2]))
    }
  })

  it("releases campaign mail into each tenant's bulk shard, filling the lane's total depth to the high-water mark", async () => {
    const pipeline = producers as TestPipeline
    // Two senders per shard: the 60 slots need at least three campaigns of 20, and any three of these
    // six span two shards or more, whichever campaigns the dispatcher and the pacer take first.
    const senders = [0, 1, 2].flatMap((shard) =>
      tenantIds.filter((tenantId) => tenantShard(tenantId, SHARDS) === shard).slice(0, 2),
    )
    for (const tenantId of senders) {
      await setPlan(pipeline.database.db, tenantId, { ratePerSec: 1_000, burst: 1_000 })
      await seedCampaign(pipeline.database.db, { tenantId, contacts: 20 })
      campaignRecipients += 20
    }
    // 120 recipients, 60 slots over all shards: a pacer that counted one shard would release more.
    const jobs = await eventually(
      async () => {
        const found = await queuedByShard('bulk')
        return found.length >= HIGH_WATER && found
      },
      { what: 'the bulk lane filled', timeoutMs: 20_000 },
    )
    for (const job of jobs) expect(job.shard).toBe(tenantShard(job.tenantId, SHARDS))
    // Three more ticks find the lane full; none releases past the total, but for new flows' first
    // turns (one message each here, weight 1), which a full lane still takes (`newFlowRoom`).
    const fullTicks = async () =>
      (await pipeline.metrics.pacerTicks.get()).values.find((value) => value.labels.result === 'full')
        ?.value ?? 0
    const before = await fullTicks()
    await eventually(async () => (await fullTicks()) >= before + 3, { what: 'three full ticks' })
    const after = await queuedByShard('bulk')
    expect(after.length).toBeGreaterThanOrEqual(HIGH_WATER)
    expect(after.length).toBeLessThanOrEqual(HIGH_WATER + senders.length)
    expect(new Set(after.map((job) => job.shard)).size).toBeGreaterThan(1)
    // The depth gauge is the lane's total over its shards.
    expect(await pipeline.registry.metrics()).toMatch(
      new RegExp(`fairlane_lane_jobs\\{lane="bulk",state="waiting"\\} ${after.length}\\b`),
    )
  })

  it('republishes a lost job into its own shard, and leaves live jobs in other shards alone', async () => {
    const pipeline = producers as TestPipeline
    const lost = seeded.find(
      (message) => message.lane === 'critical' && tenantShard(message.tenantId, SHARDS) === 2,
    )
    if (!lost) throw new Error('no critical message on shard 2')
    const shard = inspect.queues.lanes.queueFor('critical', lost.tenantId)
    const job = await shard.getJob(sendJobId(lost.id))
    if (!job) throw new Error('the job to lose is not in its shard')
    await job.remove()
    // The sweeper (queued for 1.5 s with no live job) republishes; the relay adds generation 1.
    await eventually(async () => (await shard.getJobState(sendJobId(lost.id, 1))) === 'waiting', {
      what: 'the lost job back in its shard',
      timeoutMs: 15_000,
    })
    for (const [index, other] of inspect.queues.lanes.shardsOf('critical').entries()) {
      if (index !== 2) expect(await other.getJob(sendJobId(lost.id, 1))).toBeUndefined()
    }
    // Every other message's job (critical, default, bulk) was found live in its shard by the same
    // passes: none was republished.
    const republished = await pipeline.database.db
      .select({ id: messages.id })
      .from(messages)
      .where(gt(messages.generation, 0))
    expect(republished.map((row) => row.id)).toEqual([lost.id])
  })

  it('delivers every message exactly once with workers consuming every shard', async () => {
    await producers?.stop()
    producers = undefined
    const workers = await startTestPipeline(test, sink, {
      laneShards: SHARDS,
      pacer: { highWater: HIGH_WATER, horizonMs: 1_000 },
      logger: testLogger(process.env.TEST_LOG_LEVEL),
    })
    try {
      const total = seeded.length + campaignRecipients
      await eventually(() => sink.store.list().length >= total, {
        what: `${total} mails at the sink`,
        timeoutMs: 30_000,
      })
      await eventually(
        async () => {
          const sent = await workers.database.db
            .select({ id: messages.id })
            .from(messages)
            .where(eq(messages.status, 'sent'))
          return sent.length === total
        },
        { what: 'every row sent' },
      )
      expect(sink.store.list()).toHaveLength(total)
      expect(duplicateMessageIds(sink)).toEqual([])
      const ids = new Set(sink.store.list().map((mail) => mail.messageId))
      for (const message of seeded) expect(ids.has(`<${message.id}@fairlane.test>`)).toBe(true)
      expect(await workers.registry.metrics()).toMatch(
        /fairlane_lane_jobs\{lane="bulk",state="waiting"\} 0\b/,
      )
    } finally {
      await workers.stop()
    }
  })
})
