import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createProducerConnection, createQueues, type Queues, SYSTEM_QUEUE } from '@fairlane/queue'
import { eventually, setupTestEnvironment, startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import type { Redis } from 'ioredis'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createWorkerMetrics } from '../metrics'
import { CLEANUP_SCHEDULER_ID, ROLLUP_SCHEDULER_ID } from '../operations/operations-jobs'
import { DELIVERY_TUNING, DISPATCH_SCHEDULER_ID, startSystem } from '../start-delivery'
import { testLogger } from '../test-support/pipeline'
import type { SystemWorker } from './system-worker'

const env = setupTestEnvironment('system-schedulers')
const KEYS = [CLEANUP_SCHEDULER_ID, DISPATCH_SCHEDULER_ID, ROLLUP_SCHEDULER_ID].sort()

let database: DatabaseHandle
const cleanups: (() => Promise<unknown>)[] = []

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 4, applicationName: 'test-system' })
})
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})
afterAll(async () => {
  await database?.close()
})

function queuesOn(redisUrl: string, prefix: string): { queues: Queues; connection: Redis } {
  const connection = createProducerConnection(redisUrl, 'test-system', testLogger())
  const queues = createQueues(connection, prefix, testLogger())
  cleanups.push(async () => {
    await Promise.all(Object.values(queues).map((queue) => queue.close()))
    await connection.quit().catch(() => connection.disconnect())
  })
  return { queues, connection }
}

async function start(redisUrl: string, prefix: string, queues: Queues, reconcileEveryMs?: number) {
  const system: SystemWorker = await startSystem(
    {
      database,
      redisUrl,
      queuePrefix: prefix,
      logger: testLogger(process.env.TEST_LOG_LEVEL),
      metrics: createWorkerMetrics(new Registry()),
      operations: { timeZone: 'Asia/Ho_Chi_Minh', auditRetentionDays: 365 },
    },
    {
      queues,
      pacer: { wake: () => {} },
      tuning: {
        dispatch: DELIVERY_TUNING.dispatch,
        system: { reconcileEveryMs: reconcileEveryMs ?? DELIVERY_TUNING.system.reconcileEveryMs },
      },
    },
  )
  cleanups.push(() => system.close())
  return system
}

async function schedulerIds(queues: Queues): Promise<string[]> {
  const schedulers = await queues[SYSTEM_QUEUE].getJobSchedulers(0, -1, true)
  return schedulers.map((scheduler) => scheduler.key).sort()
}

describe('system schedulers', () => {
  it('starting the system scheduler setup three times leaves exactly one scheduler per key', async () => {
    const prefix = `${env.queuePrefix}-three`
    const { queues } = queuesOn(env.redisUrl, prefix)
    for (let i = 0; i < 3; i += 1) await start(env.redisUrl, prefix, queues)
    expect(await schedulerIds(queues)).toEqual(KEYS)
    const schedulers = await queues[SYSTEM_QUEUE].getJobSchedulers(0, -1, true)
    const byKey = Object.fromEntries(schedulers.map((s) => [s.key, s]))
    expect(byKey[CLEANUP_SCHEDULER_ID]).toMatchObject({ pattern: '15 3 * * *', tz: 'Asia/Ho_Chi_Minh' })
    expect(byKey[ROLLUP_SCHEDULER_ID]).toMatchObject({ pattern: '10 0 * * *', tz: 'Asia/Ho_Chi_Minh' })
    expect(byKey[DISPATCH_SCHEDULER_ID]).toMatchObject({ every: DELIVERY_TUNING.dispatch.everyMs })
    // One pending run per cron scheduler, not one per start.
    const delayed = await queues[SYSTEM_QUEUE].getDelayed()
    for (const id of [CLEANUP_SCHEDULER_ID, ROLLUP_SCHEDULER_ID]) {
      expect(delayed.filter((job) => job.name === id)).toHaveLength(1)
    }
  })

  describe('after a FLUSHALL of the queue Redis', () => {
    let redis: ThrowawayRedis
    beforeAll(async () => {
      redis = await startThrowawayRedis()
    })
    afterAll(async () => {
      await redis?.stop()
    })

    it('registers its schedulers again by itself within seconds', async () => {
      const prefix = `${env.queuePrefix}-flush`
      const { queues } = queuesOn(redis.url, prefix)
      await start(redis.url, prefix, queues, 500)
      expect(await schedulerIds(queues)).toEqual(KEYS)

      // Everything goes, schedulers included; the running workers write new keys at once, so the
      // database is not checked empty — only that the schedulers come back.
      await redis.admin.flushall()

      await eventually(async () => JSON.stringify(await schedulerIds(queues)) === JSON.stringify(KEYS), {
        what: 'every scheduler back after FLUSHALL',
        timeoutMs: 10_000,
        intervalMs: 100,
      })
      // And the dispatcher runs again: its every-second job keeps being produced and consumed.
      await eventually(
        async () => {
          const next = await queues[SYSTEM_QUEUE].getJobScheduler(DISPATCH_SCHEDULER_ID)
          return next?.next !== undefined && (next.iterationCount ?? 0) >= 2
        },
        { what: 'campaign dispatch iterating again', timeoutMs: 10_000, intervalMs: 100 },
      )
    })
  })
})

it('re-registers every SCHEDULE_RECONCILE_MS by default, a cheap enough period for a FLUSHALL to heal in seconds', () => {
  expect(DELIVERY_TUNING.system.reconcileEveryMs).toBe(30_000)
})
