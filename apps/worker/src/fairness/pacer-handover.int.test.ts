import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { findLease } from '@fairlane/db/queries/leases'
import { PACER_LEASE } from '@fairlane/delivery/engine/fairness/pacer-lease'
import { startTestSink } from '@fairlane/delivery/testing/sink'
import { eventually, type RunningProcess, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startWorkerProcess } from '../test-support/worker-process'

/**
 * Two worker processes (`main.ts`) contend for the pacer; the leader is SIGKILLed (no release) and
 * the other takes over once the lease expires. Also in the `pgbouncer` project: there the workers
 * run with DATABASE_URL through PgBouncer, DATABASE_PREPARE=false and LISTEN on DATABASE_DIRECT_URL.
 */
const test = setupTestEnvironment('pacer-handover')
let database: DatabaseHandle
let sink: Awaited<ReturnType<typeof startTestSink>>
const running: RunningProcess[] = []

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 2, prepare: test.databasePrepare })
  sink = await startTestSink()
})
afterAll(async () => {
  for (const worker of running) if (worker.child.exitCode === null) worker.child.kill('SIGKILL')
  await sink?.close()
  await database?.close()
})

function startWorker(): Promise<RunningProcess> {
  return startWorkerProcess(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: test.databaseUrl,
      DATABASE_DIRECT_URL: test.databaseDirectUrl,
      DATABASE_PREPARE: String(test.databasePrepare),
      REDIS_URL: test.redisUrl,
      QUEUE_PREFIX: test.queuePrefix,
      SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`,
      MAIL_DOMAIN: 'fairlane.test',
    },
    { running, healthTimeoutMs: 30_000 },
  )
}

const pidOf = (holder: string | undefined) => Number(holder?.split(':')[1])

it('one worker leads; SIGKILLed, the other takes the pacer over after the lease expires', async () => {
  const [a, b] = await Promise.all([startWorker(), startWorker()])
  const first = await eventually(() => findLease(database.db, PACER_LEASE.name), { what: 'a pacer leader' })
  const [leader, follower] = pidOf(first.holder) === a.child.pid ? [a, b] : [b, a]
  expect(pidOf(first.holder)).toBe(leader.child.pid)
  expect(leader.output()).toContain('pacer leadership taken')
  expect(follower.output()).not.toContain('pacer leadership taken')

  const killedAt = Date.now()
  leader.child.kill('SIGKILL')
  await leader.exited
  const next = await eventually(
    async () => {
      const lease = await findLease(database.db, PACER_LEASE.name)
      return lease?.holder !== first.holder ? lease : undefined
    },
    { what: 'the takeover', timeoutMs: 30_000, intervalMs: 100 },
  )
  const handoverMs = Date.now() - killedAt
  console.log('pacer handover after SIGKILL', { handoverMs, ttlMs: PACER_LEASE.ttlMs, term: next.term })
  expect(pidOf(next.holder)).toBe(follower.child.pid)
  expect(next.term).toBe(first.term + 1)
  // Not before the dead leader's lease ran out (it renewed at most a tick before the kill).
  expect(handoverMs).toBeGreaterThanOrEqual(PACER_LEASE.ttlMs - 1_000)
  await eventually(() => follower.output().includes('pacer leadership taken'), {
    what: "the follower's log line",
  })
})
