import { createDatabase, type DatabaseHandle, messages } from '@fairlane/db'
import { hasVisibleStatus } from '@fairlane/db/queries/message-claims'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  type Queues,
  type RedisClient,
} from '@fairlane/queue'
import { setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { and, eq } from 'drizzle-orm'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { createWorkerMetrics } from '../metrics'
import { createPacerMemory, paceOnce } from './pacer'
import { createReceiverPacing } from './receiver-pacing'

/**
 * The pacer in MX mode against real PostgreSQL and Redis, with the provider lookup and the
 * providers' rates in memory: a throttled provider's backlog holds up no other provider's mail,
 * even the same tenant's, even when it is older.
 */
const env = setupTestEnvironment('receiver-pacer')
let database: DatabaseHandle
let connection: RedisClient
let queues: Queues

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4, applicationName: 'test-receiver-pacer' })
  connection = createProducerConnection(testRedisTarget(env), 'test-receiver-pacer', testLogger())
  queues = createQueues(connection, env.queuePrefix, testLogger(), 1)
})
afterAll(async () => {
  if (queues) await closeQueues(queues)
  connection?.disconnect()
  await database?.close()
})

async function seed(tenantId: string, domain: string, count: number, createdAt: Date) {
  await database.db.insert(messages).values(
    Array.from({ length: count }, (_, index) => ({
      tenantId,
      lane: 'bulk' as const,
      status: 'pending' as const,
      toAddress: `reader${index}@${domain}`,
      subject: 'News',
      text: 'Hello',
      createdAt,
    })),
  )
}

async function count(tenantId: string, domain: string, status: 'pending' | 'queued') {
  const rows = await database.db
    .select({ to: messages.toAddress })
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), hasVisibleStatus(status)))
  return rows.filter((row) => row.to.endsWith(`@${domain}`)).length
}

describe('the pacer in MX mode', () => {
  it('releases other providers’ mail while one provider is throttled to nothing', async () => {
    const newsletter = await createTenant(database.db, 'Newsletter')
    const shop = await createTenant(database.db, 'Shop')
    // The newsletter's oldest mail is all for the throttled provider.
    await seed(newsletter, 'throttled.test', 300, new Date(Date.now() - 60_000))
    await seed(newsletter, 'fine.test', 30, new Date())
    await seed(shop, 'fine.test', 30, new Date())
    const rates = new Map([
      ['throttled', 0],
      ['fine', 60_000],
    ])
    const receivers = createReceiverPacing({
      db: database.db,
      providers: {
        resolve: async (domain) =>
          domain === 'throttled.test' ? 'throttled' : domain === 'fine.test' ? 'fine' : null,
      },
      ratePerMinute: (provider) => rates.get(provider) ?? 0,
      horizonMs: 1_000,
    })
    const options = {
      db: database.db,
      bulkLane: queues.lanes,
      highWater: 1_000,
      horizonMs: 1_000,
      receivers,
      logger: testLogger(),
      metrics: createWorkerMetrics(new Registry()),
    }
    const state = createPacerMemory(1_000)
    let nowMs = Date.now()
    // Ticks, not sleeps: each tick's clock is 100 ms on; the lookups answer between ticks.
    for (let tick = 0; tick < 30; tick++) {
      await paceOnce(options, state, () => nowMs)
      await new Promise((resolve) => setImmediate(resolve))
      nowMs += 100
      if (
        (await count(newsletter, 'fine.test', 'pending')) + (await count(shop, 'fine.test', 'pending')) ===
        0
      )
        break
    }
    expect(await count(newsletter, 'fine.test', 'queued')).toBe(30)
    expect(await count(shop, 'fine.test', 'queued')).toBe(30)
    expect(await count(newsletter, 'throttled.test', 'pending')).toBe(300)
    const [queue] = queues.lanes.shardsOf('bulk')
    const jobs = await queue?.getJobs(['waiting', 'prioritized', 'delayed'])
    expect(jobs?.length).toBe(60)

    // The provider recovers: its mail goes out too, at the newsletter's own plan rate now.
    rates.set('throttled', 60_000)
    for (let tick = 0; tick < 10; tick++) {
      await paceOnce(options, state, () => nowMs)
      nowMs += 100
    }
    expect(await count(newsletter, 'throttled.test', 'queued')).toBeGreaterThan(0)
  })
})
