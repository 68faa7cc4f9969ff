import { LANES } from '@fairlane/core'
import { createDatabase, type DatabaseHandle, outbox } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { sendJobId } from '@fairlane/queue'
import { eventually, freePort, setupTestEnvironment } from '@fairlane/testing'
import { isNull } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectQueues, startTestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'
import { type PublishDeps, publishOutboxBatch } from './publish-batch'
import { startRelay } from './relay'

const test = setupTestEnvironment('relay')
let database: DatabaseHandle
let inspect: ReturnType<typeof inspectQueues>
let sink: MailSink
let tenantId: string

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 10 })
  inspect = inspectQueues(test)
  sink = await startTestSink()
  tenantId = await createTenant(database.db)
})
afterAll(async () => {
  await inspect?.close()
  await database?.close()
  await sink?.close()
})

function relayDeps(overrides: Partial<PublishDeps> = {}): PublishDeps {
  return {
    db: database.db,
    lanes: inspect.queues.lanes,
    batchSize: 500,
    addTimeoutMs: 2_000,
    skipIds: new Set(),
    logger: testLogger(),
    ...overrides,
  }
}

async function unpublished(): Promise<{ id: number; attempts: number }[]> {
  return database.db
    .select({ id: outbox.id, attempts: outbox.attempts })
    .from(outbox)
    .where(isNull(outbox.publishedAt))
}

async function jobCount(): Promise<number> {
  let total = 0
  for (const lane of LANES) {
    const counts = await inspect.lane(lane).getJobCounts()
    total += Object.values(counts).reduce((sum, count) => sum + count, 0)
  }
  return total
}

describe('relay', () => {
  it('dies between addBulk and COMMIT, runs again: one job per message, one delivery each', async () => {
    const seeded = await seedQueuedMessages(database.db, {
      tenantId,
      count: 40,
      to: (i) => `crash${i}@example.com`,
    })
    const crash = relayDeps({
      hooks: {
        afterAddBulk: () => {
          throw new Error('relay killed before COMMIT')
        },
      },
    })
    await expect(publishOutboxBatch(crash)).rejects.toThrow('relay killed before COMMIT')
    // The jobs reached Redis, the rows were rolled back (and their failed attempt counted).
    expect(await jobCount()).toBe(40)
    const pending = await unpublished()
    expect(pending).toHaveLength(40)
    expect(pending.every((row) => row.attempts === 1)).toBe(true)

    expect(await publishOutboxBatch(relayDeps())).toEqual({ claimed: 40, published: 40, rejected: 0 })
    expect(await unpublished()).toHaveLength(0)
    expect(await jobCount()).toBe(40)
    for (const message of seeded.slice(0, 3)) {
      expect(await inspect.lane('critical').getJobState(sendJobId(message.id))).toBe('waiting')
    }

    const pipeline = await startTestPipeline(test, sink)
    try {
      await eventually(() => sink.store.size === 40, { what: '40 deliveries', timeoutMs: 20_000 })
      expect(duplicateMessageIds(sink)).toEqual([])
      expect(new Set(sink.store.list().map((mail) => mail.messageId))).toEqual(
        new Set(seeded.map((message) => `<${message.id}@fairlane.test>`)),
      )
    } finally {
      await pipeline.stop()
    }
  })

  it('lets two relays share a backlog with SKIP LOCKED: every row published once', async () => {
    await inspect.lane('critical').obliterate({ force: true })
    await seedQueuedMessages(database.db, { tenantId, count: 300, to: (i) => `shared${i}@example.com` })
    const results = await Promise.all([
      publishOutboxBatch(relayDeps({ batchSize: 50 })),
      publishOutboxBatch(relayDeps({ batchSize: 50 })),
    ])
    expect(results.map((result) => result.published)).toEqual([50, 50])
    while ((await publishOutboxBatch(relayDeps({ batchSize: 50 }))).claimed > 0) {}
    expect(await unpublished()).toHaveLength(0)
    expect(await inspect.lane('critical').getJobCountByTypes('waiting')).toBe(300)
  })

  it('is woken by NOTIFY long before its poll', async () => {
    // LISTEN keeps session state: PostgreSQL itself, never through PgBouncer.
    const listen = createDatabase(test.databaseDirectUrl, { max: 1 })
    const relay = startRelay({ ...relayDeps(), listenSql: listen.sql, pollMs: 60_000, maxBackoffMs: 1_000 })
    try {
      // Let the first pass and the LISTEN settle, so only the NOTIFY can explain what follows.
      await new Promise((resolve) => setTimeout(resolve, 500))
      const started = Date.now()
      const [message] = await seedQueuedMessages(database.db, { tenantId, to: () => 'notify@example.com' })
      await eventually(
        async () => (await inspect.lane('critical').getJobState(sendJobId(message?.id ?? ''))) === 'waiting',
        { what: 'the job, by NOTIFY', timeoutMs: 5_000, intervalMs: 10 },
      )
      expect(Date.now() - started).toBeLessThan(1_000)
    } finally {
      await relay.stop()
      await listen.close()
    }
  })

  it('keeps rows unpublished while Redis is away, counting attempts, and publishes once it is back', async () => {
    const down = inspectQueues({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      redisCluster: false,
      queuePrefix: test.queuePrefix,
    })
    const seeded = await seedQueuedMessages(database.db, {
      tenantId,
      count: 5,
      to: (i) => `outage${i}@example.com`,
    })
    try {
      await expect(
        publishOutboxBatch(relayDeps({ lanes: down.queues.lanes, addTimeoutMs: 300 })),
      ).rejects.toThrow()
      await expect(
        publishOutboxBatch(relayDeps({ lanes: down.queues.lanes, addTimeoutMs: 300 })),
      ).rejects.toThrow()
    } finally {
      await down.close().catch(() => {})
    }
    const pending = await unpublished()
    expect(pending).toHaveLength(5)
    expect(pending.every((row) => row.attempts === 2)).toBe(true)
    expect((await publishOutboxBatch(relayDeps())).published).toBe(5)
    expect(await inspect.lane('critical').getJobState(sendJobId(seeded[0]?.id ?? ''))).toBe('waiting')
  })

  it('as a backstop (a bulk-only process) leaves fresh rows to the LISTENing relay, publishing only rows that waited past its limit', async () => {
    const listen = createDatabase(test.databaseDirectUrl, { max: 2 })
    const published = { backstop: 0, listening: 0 }
    // Polls every 20 ms, so a fresh row in its reach would be taken at once if the rule did not hold.
    const backstop = startRelay({
      ...relayDeps({
        hooks: {
          afterAddBulk: (count) => {
            published.backstop += count
          },
        },
      }),
      listenSql: listen.sql,
      pollMs: 20,
      maxBackoffMs: 1_000,
      backstopAfterMs: 60_000,
    })
    const listening = startRelay({
      ...relayDeps({
        hooks: {
          afterAddBulk: (count) => {
            published.listening += count
          },
        },
      }),
      listenSql: listen.sql,
      pollMs: 60_000,
      maxBackoffMs: 1_000,
    })
    try {
      const fresh = await seedQueuedMessages(database.db, {
        tenantId,
        count: 20,
        to: (i) => `fresh${i}@example.com`,
      })
      await eventually(async () => (await unpublished()).length === 0, {
        what: 'the fresh rows published',
        timeoutMs: 5_000,
      })
      expect(published).toEqual({ backstop: 0, listening: fresh.length })
    } finally {
      await listening.stop()
    }
    try {
      // The transactional process is gone: what it leaves waits, then the backstop publishes it.
      const [left] = await seedQueuedMessages(database.db, { tenantId, to: () => 'left@example.com' })
      await database.sql`update outbox set created_at = now() - interval '2 minutes' where published_at is null`
      // Committed (the hook that counts ran before the mark): its job in the lane, by the backstop.
      await eventually(async () => (await unpublished()).length === 0, {
        what: 'the waiting row, by the backstop',
        timeoutMs: 5_000,
        intervalMs: 10,
      })
      expect(await inspect.lane('critical').getJobState(sendJobId(left?.id ?? ''))).toBe('waiting')
      expect(published.backstop).toBe(1)
    } finally {
      await backstop.stop()
      await listen.close()
    }
  })
})
