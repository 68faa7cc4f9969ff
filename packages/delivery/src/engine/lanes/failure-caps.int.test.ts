import { messages } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import type { RedisClient } from '@fairlane/queue'
import { DEAD_LETTER_QUEUE, SYSTEM_QUEUE } from '@fairlane/queue'
import { connectTestRedis, eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'
import { DEFAULT_TRANSACTIONAL_LANES } from '../delivery-options'
import { restoreDeadLetters } from './dead-letter-restore'
import { trimDeadLetters } from './dead-letter-trim'

/**
 * A tenant sending to addresses that answer 5xx: every message fails for good. The queue Redis runs
 * noeviction, so what it keeps of those failures must stop at the caps (the `failed` rows in
 * PostgreSQL stay the record), and the dead-letter restore must not put back what the cap trimmed.
 */
const env = setupTestEnvironment('failure-caps')
const FLOOD = 60
const caps = {
  failedJobs: { maxCount: 20, maxAgeHours: 24 },
  deadLetters: { maxCount: 15, maxAgeDays: 30 },
}
let sink: MailSink
let pipeline: TestPipeline
let inspect: ReturnType<typeof inspectQueues>
let redis: RedisClient

beforeAll(async () => {
  sink = await startTestSink()
  sink.faults.add({ match: '@bounces.test', reply: '550 5.1.1 no such user' })
  pipeline = await startTestPipeline(env, sink, {
    caps,
    // One job per message (TX_BATCH_SIZE=1), so each permanent failure is a failed job: in a batch,
    // a message's failure is its own dead letter and the batch job itself completes.
    transactionalLanes: { ...DEFAULT_TRANSACTIONAL_LANES, batchSize: 1 },
    tuning: {
      relay: { pollMs: 200, maxBackoffMs: 500, addTimeoutMs: 2_000 },
      sweeper: { intervalMs: 300, queuedForMs: 1_500 },
      system: { reconcileEveryMs: 5_000, deadLetterCheckEveryMs: 300 },
    },
  })
  inspect = inspectQueues(env)
  redis = connectTestRedis(env)
})
afterAll(async () => {
  await pipeline?.stop()
  await inspect?.close()
  await redis?.quit()
  await sink?.close()
})

async function deadLetterIds(): Promise<string[]> {
  const jobs = await inspect.queues[DEAD_LETTER_QUEUE].getJobs(['waiting'])
  return jobs.map((job) => String(job.id)).sort()
}

describe('failure caps', () => {
  it('a flood of permanently failing mail leaves the failed set and the dead-letter queue at their caps', async () => {
    const tenantId = await createTenant(pipeline.database.db, 'Bouncer')
    await seedQueuedMessages(pipeline.database.db, {
      tenantId,
      lane: 'default',
      count: FLOOD,
      to: (index) => `gone${index}@bounces.test`,
    })
    const failedRows = async () => {
      const [row] = await pipeline.database.db
        .select({ n: count() })
        .from(messages)
        .where(and(eq(messages.tenantId, tenantId), eq(messages.status, 'failed')))
      return row?.n ?? 0
    }
    await eventually(async () => (await failedRows()) === FLOOD, {
      what: `all ${FLOOD} messages failed in PostgreSQL`,
      timeoutMs: 30_000,
      intervalMs: 200,
    })
    const failedJobs = await inspect.lane('default').getJobCounts('failed')
    expect(failedJobs.failed).toBe(caps.failedJobs.maxCount)
    await eventually(
      async () => (await inspect.queues[DEAD_LETTER_QUEUE].getJobCounts('waiting')).waiting === 15,
      { what: 'the dead-letter queue trimmed to its cap of 15', timeoutMs: 15_000, intervalMs: 100 },
    )
    // Every failure is still the record in PostgreSQL.
    expect(await failedRows()).toBe(FLOOD)

    // The restore and the trim do not undo each other: a restore at the cap adds nothing, and the
    // queue keeps the same dead letters across runs.
    const kept = await deadLetterIds()
    const queue = inspect.queues[DEAD_LETTER_QUEUE]
    const deps = {
      db: pipeline.database.db,
      queue,
      redis,
      retentionDays: 365,
      caps: caps.deadLetters,
      clock: { now: () => new Date() },
      logger: testLogger(),
    }
    for (let run = 0; run < 3; run++) {
      expect(await restoreDeadLetters(deps)).toEqual({ kind: 'full' })
      expect(await trimDeadLetters({ queue, caps: caps.deadLetters })).toEqual({ byAge: 0, byCount: 0 })
    }
    expect(await deadLetterIds()).toEqual(kept)

    // After Redis lost the dead letters (the marker with them), the restore (the scheduler's, every
    // 300 ms here) brings back the newest 15 failures only, not all 60 for the trim to remove again.
    // The loss is staged while no system job runs: a restore already past its marker check when the
    // queue empties would take it for an intact queue with room (the recent-failures pass, in id
    // order), which is the race of a real flush, not what this step checks.
    const system = inspect.queues[SYSTEM_QUEUE]
    await system.pause()
    await eventually(async () => (await system.getActiveCount()) === 0, {
      what: 'no system job running',
      timeoutMs: 10_000,
      intervalMs: 20,
    })
    await queue.obliterate({ force: true })
    await redis.del(`${queue.qualifiedName}:complete`)
    await system.resume()
    await eventually(async () => (await redis.exists(`${queue.qualifiedName}:complete`)) === 1, {
      what: 'the dead-letter queue restored and marked complete',
      timeoutMs: 10_000,
      intervalMs: 50,
    })
    // Failures in the same millisecond as the 15th newest are restored with it; the trim (every 300 ms)
    // then removes the oldest of them.
    await eventually(async () => (await queue.getJobCounts('waiting')).waiting === 15, {
      what: 'the restored dead-letter queue at its cap of 15',
      timeoutMs: 10_000,
      intervalMs: 50,
    })
    const failures = await pipeline.database.db
      .select({ id: messages.id, failedAt: messages.failedAt })
      .from(messages)
      .where(and(eq(messages.tenantId, tenantId), eq(messages.status, 'failed')))
    const failedAt = new Map(failures.map((row) => [row.id, row.failedAt?.getTime() ?? 0]))
    const times = [...failedAt.values()].sort((a, b) => b - a)
    // Failures in the same millisecond at the cut-off cannot be told apart here (JavaScript dates
    // hold milliseconds) nor by the trim (job timestamps too): any of them may fill the last places.
    const cutOff = times[14] ?? 0
    const restoredMessages = (await queue.getJobs(['waiting'])).map((job) => String(job.data.messageId))
    expect(new Set(restoredMessages).size).toBe(15)
    for (const id of restoredMessages) expect(failedAt.get(id) ?? 0).toBeGreaterThanOrEqual(cutOff)
    const newerThanCutOff = failures
      .filter((row) => (row.failedAt?.getTime() ?? 0) > cutOff)
      .map((row) => row.id)
    expect(restoredMessages).toEqual(expect.arrayContaining(newerThanCutOff))
    expect(await trimDeadLetters({ queue, caps: caps.deadLetters })).toEqual({ byAge: 0, byCount: 0 })
  })

  it('trims dead letters whose failure is older than the age cap, restored ones included', async () => {
    const queue = inspect.queues[DEAD_LETTER_QUEUE]
    const before = (await queue.getJobCounts('waiting')).waiting ?? 0
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString()
    await queue.add(
      'dead-letter',
      {
        v: 1,
        queue: 'default',
        jobId: 'm-x',
        messageId: 'x',
        tenantId: 'y',
        error: 'e',
        attempts: 1,
        failedAt: old,
      },
      { jobId: 'dl-old', timestamp: Date.parse(old) },
    )
    expect(await trimDeadLetters({ queue, caps: { maxCount: 1_000, maxAgeDays: 30 } })).toEqual({
      byAge: 1,
      byCount: 0,
    })
    expect(await queue.getJob('dl-old')).toBeUndefined()
    expect((await queue.getJobCounts('waiting')).waiting).toBe(before)
  })
})
