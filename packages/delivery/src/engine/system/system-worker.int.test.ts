import { createDatabase, type DatabaseHandle, messages } from '@fairlane/db'
import {
  closeQueues,
  createProducerConnection,
  createQueues,
  DEAD_LETTER_QUEUE,
  deadLetterJobId,
  type Queues,
  type RedisClient,
  SYSTEM_QUEUE,
  sendJobId,
} from '@fairlane/queue'
import { eventually, setupTestEnvironment, startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { DOMAIN_CHECKS_EVERY_MS, DOMAIN_CHECKS_SCHEDULER_ID } from '../domains/domain-checks-jobs'
import { createWorkerMetrics } from '../metrics'
import { CLEANUP_SCHEDULER_ID, ROLLUP_SCHEDULER_ID } from '../operations/operations-jobs'
import { createDeliverySignals } from '../signals'
import {
  DEAD_LETTER_RESTORE_SCHEDULER_ID,
  DELIVERY_TUNING,
  DISPATCH_SCHEDULER_ID,
  startSystem,
} from '../start-delivery'
import { WEBHOOK_HEALTH_SCHEDULER_ID } from '../webhooks/endpoint-health-jobs'
import { REPUTATION_CHECK_SCHEDULER_ID } from './system-jobs'
import type { SystemWorker } from './system-worker'

const env = setupTestEnvironment('system-schedulers')
const KEYS = [
  CLEANUP_SCHEDULER_ID,
  DEAD_LETTER_RESTORE_SCHEDULER_ID,
  DISPATCH_SCHEDULER_ID,
  DOMAIN_CHECKS_SCHEDULER_ID,
  REPUTATION_CHECK_SCHEDULER_ID,
  ROLLUP_SCHEDULER_ID,
  WEBHOOK_HEALTH_SCHEDULER_ID,
].sort()

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

function queuesOn(redisUrl: string, prefix: string): { queues: Queues; connection: RedisClient } {
  const connection = createProducerConnection({ url: redisUrl, cluster: false }, 'test-system', testLogger())
  const queues = createQueues(connection, prefix, testLogger(), 1)
  cleanups.push(async () => {
    await closeQueues(queues)
    await connection.quit().catch(() => connection.disconnect())
  })
  return { queues, connection }
}

async function start(
  redisUrl: string,
  prefix: string,
  { queues, connection }: { queues: Queues; connection: RedisClient },
  everyMs: { reconcile?: number; deadLetterCheck?: number } = {},
) {
  const system: SystemWorker = await startSystem(
    {
      database,
      redisUrl,
      redisCluster: false,
      queuePrefix: prefix,
      logger: testLogger(process.env.TEST_LOG_LEVEL),
      metrics: createWorkerMetrics(new Registry()),
      operations: { timeZone: 'Asia/Ho_Chi_Minh', auditRetentionDays: 365 },
      appUrl: 'http://127.0.0.1:3999',
    },
    {
      queues,
      redis: connection,
      signals: createDeliverySignals({ logger: testLogger(process.env.TEST_LOG_LEVEL) }),
      tuning: {
        dispatch: DELIVERY_TUNING.dispatch,
        system: {
          reconcileEveryMs: everyMs.reconcile ?? DELIVERY_TUNING.system.reconcileEveryMs,
          deadLetterCheckEveryMs: everyMs.deadLetterCheck ?? DELIVERY_TUNING.system.deadLetterCheckEveryMs,
        },
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
    const on = queuesOn(env.redisUrl, prefix)
    const { queues } = on
    for (let i = 0; i < 3; i += 1) await start(env.redisUrl, prefix, on)
    expect(await schedulerIds(queues)).toEqual(KEYS)
    const schedulers = await queues[SYSTEM_QUEUE].getJobSchedulers(0, -1, true)
    const byKey = Object.fromEntries(schedulers.map((s) => [s.key, s]))
    expect(byKey[CLEANUP_SCHEDULER_ID]).toMatchObject({ pattern: '15 3 * * *', tz: 'Asia/Ho_Chi_Minh' })
    expect(byKey[ROLLUP_SCHEDULER_ID]).toMatchObject({ pattern: '10 0 * * *', tz: 'Asia/Ho_Chi_Minh' })
    expect(byKey[DISPATCH_SCHEDULER_ID]).toMatchObject({ every: DELIVERY_TUNING.dispatch.everyMs })
    expect(byKey[DOMAIN_CHECKS_SCHEDULER_ID]).toMatchObject({ every: DOMAIN_CHECKS_EVERY_MS })
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
      const on = queuesOn(redis.url, prefix)
      const { queues } = on
      await start(redis.url, prefix, on, { reconcile: 500 })
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

    it('registers its schedulers again on reconnect, long before its timer', async () => {
      const prefix = `${env.queuePrefix}-reconnect`
      const on = queuesOn(redis.url, prefix)
      // The periodic re-registration is a minute away: only the reconnect can bring them back in time.
      await start(redis.url, prefix, on, { reconcile: 60_000 })
      expect(await schedulerIds(on.queues)).toEqual(KEYS)
      // A failover to an empty server, as the worker sees it: the data gone, every connection dropped.
      await redis.admin.flushall()
      await redis.admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes')
      // Watched through a connection of its own, made after the kill: what is tested is the worker's
      // reconnect, not how soon the test's killed fail-fast connection comes back (once seen > 10 s
      // on a loaded CI machine, every poll answering "Stream isn't writeable").
      const observer = queuesOn(redis.url, prefix)
      await eventually(
        async () => JSON.stringify(await schedulerIds(observer.queues)) === JSON.stringify(KEYS),
        {
          what: 'every scheduler back after the reconnect',
          timeoutMs: 10_000,
          intervalMs: 100,
        },
      )
    })

    it('restores the dead letters from PostgreSQL, except those an admin discarded', async () => {
      const prefix = `${env.queuePrefix}-dead-letters`
      const on = queuesOn(redis.url, prefix)
      const deadLetters = on.queues[DEAD_LETTER_QUEUE]
      const tenantId = await createTenant(database.db, 'Bounced')
      const [kept, replayedAndFailedAgain, discarded, old] = await Promise.all(
        [0, 2, 0, 0].map(async (generation, index) => {
          const [row] = await database.db
            .insert(messages)
            .values({
              tenantId,
              lane: index === 0 ? 'critical' : 'default',
              status: 'failed',
              toAddress: `gone${index}@example.test`,
              subject: 's',
              text: 't',
              attempts: 3,
              generation,
              lastError: `550 5.1.1 <gone${index}@example.test>: no such user`,
              failedAt: index === 3 ? new Date(Date.now() - 400 * 86_400_000) : new Date(),
            })
            .returning({ id: messages.id })
          return row?.id as string
        }),
      )
      // An admin discarded one after it failed (the audit entry is what says so).
      await database.db.execute(sql`
        insert into admin_audit_log (actor, action, target_type, target_id, reason)
        values ('admin@example.test', 'dlq.discard', 'message', ${discarded}, 'known bad address')`)

      await start(redis.url, prefix, on, { reconcile: 500, deadLetterCheck: 200 })
      const restoredIds = async () => (await deadLetters.getJobs(['waiting'])).map((job) => job.id).sort()
      const expected = [
        deadLetterJobId(sendJobId(kept as string, 0)),
        deadLetterJobId(sendJobId(replayedAndFailedAgain as string, 2)),
      ].sort()
      // A first start finds no marker: the queue is filled from the failed rows.
      await eventually(async () => JSON.stringify(await restoredIds()) === JSON.stringify(expected), {
        what: 'the dead letters restored at first start',
        timeoutMs: 10_000,
        intervalMs: 100,
      })
      const job = await deadLetters.getJob(deadLetterJobId(sendJobId(kept as string, 0)))
      expect(job?.data).toEqual({
        v: 1,
        queue: 'critical',
        jobId: sendJobId(kept as string, 0),
        messageId: kept,
        tenantId,
        error: '550 5.1.1 <<address>>: no such user',
        attempts: 3,
        failedAt: expect.any(String),
      })

      await redis.admin.flushall()
      await eventually(async () => JSON.stringify(await restoredIds()) === JSON.stringify(expected), {
        what: 'the dead letters back after FLUSHALL',
        timeoutMs: 15_000,
        intervalMs: 100,
      })
      // Nothing for the discarded one, nor for one older than the audit retention (365 days here).
      expect(await deadLetters.getJob(deadLetterJobId(sendJobId(discarded as string, 0)))).toBeUndefined()
      expect(await deadLetters.getJob(deadLetterJobId(sendJobId(old as string, 0)))).toBeUndefined()

      // A worker that died between marking a row failed and adding its dead letter: the queue is whole
      // by its marker, and the next runs' look at the last minute's failures fills the gap.
      const [straggler] = await database.db
        .insert(messages)
        .values({
          tenantId,
          lane: 'critical',
          status: 'failed',
          toAddress: 'late@example.test',
          subject: 's',
          text: 't',
          attempts: 1,
          lastError: '550 5.7.1 rejected',
          failedAt: new Date(),
        })
        .returning({ id: messages.id })
      await eventually(
        async () =>
          (await deadLetters.getJob(deadLetterJobId(sendJobId(straggler?.id as string, 0)))) !== undefined,
        { what: "the straggler's dead letter", timeoutMs: 10_000, intervalMs: 100 },
      )
    })
  })
})

it('re-registers every SCHEDULE_RECONCILE_MS by default, a cheap enough period for a FLUSHALL to heal in seconds', () => {
  expect(DELIVERY_TUNING.system.reconcileEveryMs).toBe(30_000)
})
