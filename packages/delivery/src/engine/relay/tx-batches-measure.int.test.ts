import { messages } from '@fairlane/db'
import type { RedisClient } from '@fairlane/queue'
import { connectTestRedis, eventually, setupTestEnvironment } from '@fairlane/testing'
import { inArray } from 'drizzle-orm'
import { it } from 'vitest'
import { startTestPipeline } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'
import { DEFAULT_TRANSACTIONAL_LANES } from '../delivery-options'

/**
 * A measurement, not a check (TX_MEASURE=1 runs it, on a Redis of its own: REDIS_URL): Redis commands
 * per default-lane email with TX_BATCH_SIZE 20 against 1, under load (COUNT rows of one tenant
 * accepted at once), less the pipeline's idle commands over the same time; and how long one message
 * of a batch takes on its connection (the sink's receive times within each batch).
 */
const test = setupTestEnvironment('tx-batches-measure')
const COUNT = Number(process.env.TX_MEASURE_COUNT ?? 300)

async function commands(redis: RedisClient): Promise<number> {
  const info = await redis.info('stats')
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1])
}

it.runIf(process.env.TX_MEASURE === '1')(
  'measures Redis commands per default-lane email, batched and not',
  async () => {
    const redis = connectTestRedis(test)
    const results: Record<string, unknown>[] = []
    for (const run of [
      { batchSize: 20, slots: 10 },
      { batchSize: 1, slots: 10 },
      { batchSize: 20, slots: 20 },
      { batchSize: 1, slots: 20 },
    ]) {
      const sink = await startTestSink()
      const pipeline = await startTestPipeline(test, sink, {
        transactionalLanes: { ...DEFAULT_TRANSACTIONAL_LANES, ...run },
      })
      const db = pipeline.database.db
      const tenantId = await createTenant(db, `Measure ${run.batchSize}/${run.slots}`)
      // Warm up (connections, DKIM-free platform mail, prepared statements), then settle.
      const warm = await seedQueuedMessages(db, {
        tenantId,
        lane: 'default',
        count: 5,
        to: (i) => `w${i}@x.test`,
      })
      await waitSent(
        db,
        warm.map((m) => m.id),
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const idleFrom = await commands(redis)
      const idleStart = Date.now()
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      const idlePerMs = ((await commands(redis)) - idleFrom - 1) / (Date.now() - idleStart)
      sink.store.clear()
      const before = await commands(redis)
      const startedAt = Date.now()
      const seeded = await seedQueuedMessages(db, {
        tenantId,
        lane: 'default',
        count: COUNT,
        to: (i) => `m${String(i).padStart(4, '0')}@x.test`,
      })
      await waitSent(
        db,
        seeded.map((m) => m.id),
      )
      const elapsedMs = Date.now() - startedAt
      const used = (await commands(redis)) - before
      const received = sink.store
        .list()
        .map((mail) => Date.parse(mail.receivedAt))
        .sort((a, b) => a - b)
      results.push({
        ...run,
        emails: COUNT,
        elapsedMs,
        redisCommandsPerEmail: +(used / COUNT).toFixed(2),
        idleCommandsPerEmail: +((idlePerMs * elapsedMs) / COUNT).toFixed(2),
        netCommandsPerEmail: +((used - idlePerMs * elapsedMs) / COUNT).toFixed(2),
        emailsPerSec: +((COUNT * 1000) / elapsedMs).toFixed(1),
        receiveSpanMs: (received.at(-1) ?? 0) - (received[0] ?? 0),
        medianGapMs: median(received.slice(1).map((at, index) => at - (received[index] ?? at))),
      })
      await pipeline.stop()
      await sink.close()
    }
    await redis.quit()
    console.log(JSON.stringify(results, null, 1))
  },
  300_000,
)

async function waitSent(db: Parameters<typeof seedQueuedMessages>[0], ids: string[]) {
  await eventually(
    async () => {
      const rows = await db
        .select({ status: messages.status })
        .from(messages)
        .where(inArray(messages.id, ids))
      return rows.every((row) => row.status === 'sent')
    },
    { what: 'all sent', timeoutMs: 120_000, intervalMs: 50 },
  )
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
